// DirectorySync -- fsync of a directory, so that a created, renamed or deleted file name is durable.
package io.elastikey.store.elastic.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Linux persists a new directory entry only once the directory itself is fsynced. */
public final class DirectorySync {

    private DirectorySync() {
    }

    public static void sync(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open a directory for reading; there is nothing more to do.
            if (!"Is a directory".equals(e.getMessage())) {
                throw e;
            }
        }
    }
}
