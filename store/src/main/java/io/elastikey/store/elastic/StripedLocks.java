// StripedLocks -- per-key mutual exclusion without a lock object per key.
package io.elastikey.store.elastic;

import io.elastikey.store.elastic.hot.KeyHash;
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
        return locks[(int) KeyHash.hash64(key) & mask];
    }
}
