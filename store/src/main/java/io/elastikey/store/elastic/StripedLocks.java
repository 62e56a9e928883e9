// StripedLocks -- per-key mutual exclusion without a lock object per key.
package io.elastikey.store.elastic;

import io.elastikey.store.elastic.hot.KeyHash;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
        return locks[indexOf(key)];
    }

    /**
     * Locks the stripes of the keys of entries {@code from} to {@code to}, each once, in ascending order: two
     * batches that share stripes then cannot each hold one the other waits for. Returns what to hand to
     * {@link #unlockAll}.
     */
    int[] lockAll(List<? extends Map.Entry<byte[], byte[]>> entries, int from, int to) {
        int[] ids = new int[to - from];
        for (int i = from; i < to; i++) {
            ids[i - from] = indexOf(entries.get(i).getKey());
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

    private int indexOf(byte[] key) {
        return (int) KeyHash.hash64(key) & mask;
    }
}
