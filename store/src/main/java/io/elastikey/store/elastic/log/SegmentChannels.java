// SegmentChannels -- opens segment files so that an interrupted caller cannot close them for everyone.
package io.elastikey.store.elastic.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import net.openhft.chronicle.core.Jvm;

/**
 * A JDK {@link FileChannel} closes itself when a thread blocked in it is interrupted. Segment
 * channels are shared by every reader and writer, so one interrupted caller (a cancelled request,
 * an executor shutting down) would break the store for all. Chronicle's
 * {@link Jvm#doNotCloseOnInterrupt} switches that off; it needs the {@code sun.nio.ch} opening
 * that {@code jvm.properties} grants.
 */
final class SegmentChannels {

    private SegmentChannels() {
    }

    static FileChannel open(Path path, OpenOption... options) throws IOException {
        FileChannel ch = FileChannel.open(path, options);
        Jvm.doNotCloseOnInterrupt(SegmentChannels.class, ch);
        return ch;
    }
}
