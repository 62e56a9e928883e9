// DirectIoProbe -- whether a directory's file system lets a file be opened O_DIRECT, for tests that depend on it.
package io.elastikey.store.elastic;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens a scratch file in the directory with {@code O_DIRECT} and removes it: tmpfs, for one, refuses. */
public final class DirectIoProbe {

    private DirectIoProbe() {
    }

    public static boolean allowed(Path dir) throws IOException {
        Path probe = Files.createTempFile(dir, "probe", ".bin");
        try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
            return ch.isOpen();
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        } finally {
            Files.delete(probe);
        }
    }
}
