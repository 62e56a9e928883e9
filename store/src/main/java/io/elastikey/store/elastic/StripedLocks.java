// StripedLocks -- per-key mutual exclusion without a lock object per key.
package io.elastikey.store.elastic;

import io.elastikey.store.elastic.hot.KeyHash;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed array of locks; a key maps to one by its hash. Writers, memory-tier admissions and
 * compaction moves of the same key take the same lock, which is what keeps the memory tier from
 * ever holding a value older than the index (see {@link ElasticStore}).
 */
final class StripedLocks {

    private final ReentrantLock[] locks;
    private final int mask;

    StripedLocks(int stripes) {
        int n = Integer.highestOneBit(Math.max(1, stripes - 1)) << 1;
        locks = new ReentrantLock[n];
        for (int i = 0; i < n; i++) {
            locks[i] = new ReentrantLock();
        }
        mask = n - 1;
    }

    ReentrantLock of(byte[] key) {
        return of(KeyHash.hash64(key));
    }

    /** The stripe of the key whose {@link KeyHash#hash64} is {@code hash}. */
    ReentrantLock of(long hash) {
        return locks[(int) hash & mask];
    }

    /**
     * Locks the stripes of the keys whose hashes ({@link KeyHash#hash64}) are {@code hashes[0]} to
     * {@code hashes[count - 1]}, each stripe once, in ascending order: two batches that share stripes then cannot each
     * hold one the other waits for. Returns what to hand to {@link #unlockAll}.
     */
    int[] lockAll(long[] hashes, int count) {
        int[] ids = new int[count];
        for (int i = 0; i < count; i++) {
            ids[i] = (int) hashes[i] & mask;
        }
        Arrays.sort(ids);
        int n = 0;
        for (int i = 0; i < ids.length; i++) {
            if (n == 0 || ids[i] != ids[n - 1]) {
                ids[n++] = ids[i];
            }
        }
        int[] distinct = Arrays.copyOf(ids, n);
        for (int id : distinct) {
            locks[id].lock();
        }
        return distinct;
    }

    void unlockAll(int[] ids) {
        for (int i = ids.length - 1; i >= 0; i--) {
            locks[ids[i]].unlock();
        }
    }
}
