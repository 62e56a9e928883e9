// DirectoryLock -- one writer per data directory, across processes and within this JVM.
package io.elastikey.store.elastic;

import io.elastikey.store.StoreLockedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive {@code fcntl} lock on {@code LOCK} in the data directory, holding the owner's pid.
 * The OS drops it when the process dies, however it dies, so a crash never leaves the directory
 * locked.
 */
final class DirectoryLock implements AutoCloseable {

    static final String FILE_NAME = "LOCK";

    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static DirectoryLock acquire(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            String owner = readOwner(ch);
            ch.close();
            throw new StoreLockedException("data directory " + dir + " is already open for writing by "
                    + (owner.isEmpty() ? "another store" : "process " + owner)
                    + "; one store instance per directory");
        }
        ch.truncate(0);
        ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        return new DirectoryLock(ch, lock);
    }

    private static String readOwner(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(32);
        ch.read(b, 0);
        return new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
