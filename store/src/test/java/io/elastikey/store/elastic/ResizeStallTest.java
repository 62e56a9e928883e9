// ResizeStallTest -- a grow whose idle-priority thread never runs still finishes, and leaks nothing.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.hot.HotTier;
import io.elastikey.store.elastic.hot.OffHeap;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grow leaves making its table, touching its memory and carrying the old entries over to a thread at SCHED_IDLE
 * ({@code Resizer.runAtIdlePriority}). On cores that never idle that thread makes no step, and after
 * {@link Resizer#IDLE_STALL_NANOS} without one the rebuild goes ahead itself. Here the thread is held by a task of
 * the test's own, as busy cores would hold it, so every idle part of the grow stalls. The grow must still end
 * {@code DONE} with every value right; once the thread is let go, the idle parts queued behind the test's task must
 * close whatever they make (the rebuild kept its own table), and the old table it was given to free must be freed,
 * so that the store holds no more than its budget and closing it returns every native byte.
 */
class ResizeStallTest {

    private static final int KEYS = 400;
    private static final int VALUE = 3000;

    @TempDir
    Path dir;

    @Test
    void aGrowWhoseIdleThreadNeverRunsGoesAheadAloneAndLeaksNothing() throws Exception {
        long before = OffHeap.allocatedBytes();
        long entry = HotTier.cost(8, VALUE);
        ElasticStoreConfig config = ElasticStoreConfig.builder(dir).memoryBudgetBytes(KEYS / 10 * entry)
                .fsyncPolicy(FsyncPolicy.NEVER).indexCapacity(10_000).averageKeySize(8).averageValueSize(VALUE)
                .resizeIdlePriority(true).build();
        CountDownLatch release = new CountDownLatch(1);
        ElasticStore store = ElasticStore.open(config);
        try {
            await(store.lastResize());
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            ExecutorService preparer = preparerOf(store);
            CountDownLatch held = new CountDownLatch(1);
            preparer.execute(() -> {
                held.countDown();
                awaitUninterruptibly(release);
            });
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

            await(store.resize(KEYS * entry));

            assertThat(store.stats().memoryEntries()).isEqualTo(KEYS);
            assertEveryValue(store);
            release.countDown();
            preparer.submit(() -> { }).get(30, TimeUnit.SECONDS); // what queued behind the test's task has run
            long kept = OffHeap.allocatedBytes() - before;
            assertThat(kept).as("the old table freed, no late table kept")
                    .isLessThanOrEqualTo(KEYS * entry * 17 / 16 + 64 * 1024);
            assertEveryValue(store);
        } finally {
            release.countDown(); // before the close, which waits for the resizer's threads
            store.close();
        }
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    private static void assertEveryValue(ElasticStore store) throws Exception {
        for (int i = 0; i < KEYS; i++) {
            ByteBuffer dst = ByteBuffer.allocateDirect(VALUE);
            assertThat(store.getIfInMemory(key(i), dst)).as("key %d in memory", i).isEqualTo(VALUE);
            assertThat(dst.flip()).isEqualTo(ByteBuffer.wrap(value(i)));
        }
    }

    /** The resizer's idle-priority thread, which the store does not expose. */
    private static ExecutorService preparerOf(ElasticStore store) throws ReflectiveOperationException {
        Field resizer = ElasticStore.class.getDeclaredField("resizer");
        resizer.setAccessible(true);
        Field preparer = Resizer.class.getDeclaredField("preparer");
        preparer.setAccessible(true);
        return (ExecutorService) preparer.get(resizer.get(store));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // held as busy cores would hold the thread: only the release ends it
            }
        }
    }

    private static void await(ResizeOperation op) throws Exception {
        if (op != null) {
            assertThat(op.await(60, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
        }
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE];
        Arrays.fill(v, (byte) i);
        v[1] = (byte) (i >> 8);
        return v;
    }
}
