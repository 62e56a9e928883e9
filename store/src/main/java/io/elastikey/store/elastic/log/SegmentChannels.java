// SegmentChannels -- opens segment files so that an interrupted caller cannot close them for everyone.
package io.elastikey.store.elastic.log;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    /**
     * A second, read-only channel on the segment that reads past the page cache ({@code O_DIRECT}), or null where
     * the file system refuses it (tmpfs, some overlay and network file systems): the caller then reads through the
     * page cache as usual.
     */
    static FileChannel openDirect(Path path) {
        try {
            return open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /**
     * The alignment {@code O_DIRECT} reads of files in {@code dir} need (offset, length and buffer address), or 0
     * where the file store does not say: then records are read through the page cache.
     */
    static int directAlignment(Path dir) throws IOException {
        try {
            long size = Files.getFileStore(dir).getBlockSize();
            return (int) Math.max(512, Math.min(size, 64 << 10));
        } catch (UnsupportedOperationException e) {
            return 0;
        }
    }
}
