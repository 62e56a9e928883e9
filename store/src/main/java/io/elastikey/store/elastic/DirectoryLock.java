// DirectoryLock -- one writer per data directory, across processes and within this JVM.
package io.elastikey.store.elastic;

import io.elastikey.store.StoreLockedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exclusive {@code fcntl} lock on {@code LOCK} in the data directory, holding the owner's pid.
 * The OS drops it when the process dies, however it dies, so a crash never leaves the directory
 * locked.
 */
final class DirectoryLock implements AutoCloseable {

    static final String FILE_NAME = "LOCK";

    /** Directories a store in this JVM has open; fcntl locks cannot tell threads of one process apart. */
    private static final Set<Path> LOCKED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(Path dir, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    static DirectoryLock acquire(Path dir) throws IOException {
        // Checked before the file is opened: closing any descriptor of LOCK would drop this
        // process's fcntl lock on it, so a refused open in this JVM must never touch the file.
        Path canonical = dir.toRealPath();
        if (!LOCKED_IN_THIS_JVM.add(canonical)) {
            throw locked(dir, "another store in this process (pid " + ProcessHandle.current().pid() + ")");
        }
        try {
            FileChannel ch = FileChannel.open(canonical.resolve(FILE_NAME), StandardOpenOption.CREATE,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock = ch.tryLock();
            if (lock == null) {
                String owner = readOwner(ch);
                ch.close(); // this process holds no lock on the file, so nothing is dropped
                throw locked(dir, owner.isEmpty() ? "another process" : "process " + owner);
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            return new DirectoryLock(canonical, ch, lock);
        } catch (IOException | RuntimeException e) {
            LOCKED_IN_THIS_JVM.remove(canonical);
            throw e;
        }
    }

    private static StoreLockedException locked(Path dir, String owner) {
        return new StoreLockedException("data directory " + dir + " is already open for writing by " + owner
                + "; one store instance per directory");
    }

    private static String readOwner(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(32);
        ch.read(b, 0);
        return new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
            channel.close();
        } finally {
            LOCKED_IN_THIS_JVM.remove(dir);
        }
    }
}
