// LockProbe -- child JVM of CorruptionTest: tries to take the lock of a store directory another process holds.
package io.elastikey.store.elastic;

import io.elastikey.store.StoreLockedException;
import java.nio.file.Path;

/**
 * Argument: a store directory. Takes its lock the way {@link ElasticStore#open} does, and nothing
 * else, so that a lock which does not hold cannot let this process touch the owner's files.
 * Exits 0 after printing the {@link StoreLockedException}'s message, 1 when it got the lock, 2 on
 * any other failure.
 */
final class LockProbe {

    private LockProbe() {
    }

    public static void main(String[] args) {
        int exitCode;
        try (DirectoryLock lock = DirectoryLock.acquire(Path.of(args[0]))) {
            System.out.println("ACQUIRED the lock of " + args[0] + " (" + lock + ") while another process holds it");
            exitCode = 1;
        } catch (StoreLockedException e) {
            System.out.println("LOCKED " + e.getMessage());
            exitCode = 0;
        } catch (Exception e) {
            e.printStackTrace(System.out);
            exitCode = 2;
        }
        System.exit(exitCode);
    }
}
