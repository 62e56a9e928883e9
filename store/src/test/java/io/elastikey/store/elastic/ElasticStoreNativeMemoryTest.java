// ElasticStoreNativeMemoryTest -- the memory tier's native memory follows the budget and is all returned.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.hot.HotTier;
import io.elastikey.store.elastic.hot.OffHeap;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory tier allocates and frees native memory itself ({@code hot.OffHeapTable}); this checks, through the
 * store, that each resize leaves only the new tier's memory behind, that what the tier holds stays near its budget,
 * and that closing the store returns every byte.
 */
class ElasticStoreNativeMemoryTest {

    private static final int KEYS = 600;
    private static final int VALUE = 3000;

    @TempDir
    Path dir;

    @Test
    void resizesAndCloseReturnEveryNativeByte() throws Exception {
        long before = OffHeap.allocatedBytes();
        long entry = HotTier.cost(8, VALUE);
        ElasticStoreConfig config = ElasticStoreConfig.builder(dir).memoryBudgetBytes(KEYS * entry)
                .fsyncPolicy(FsyncPolicy.NEVER).indexCapacity(10_000).averageKeySize(8).averageValueSize(VALUE)
                .build();
        try (ElasticStore store = ElasticStore.open(config)) {
            await(store.lastResize());
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            assertThat(store.stats().memoryEntries()).isEqualTo(KEYS);
            long full = OffHeap.allocatedBytes() - before;
            assertThat(full).isBetween(KEYS * (entry - HotTier.SLOT_SHARE), KEYS * entry * 17 / 16 + 64 * 1024);

            for (long budget : new long[] {KEYS / 10 * entry, 0, KEYS * entry, KEYS / 2 * entry}) {
                await(store.resize(budget));
                long held = OffHeap.allocatedBytes() - before;
                assertThat(held).as("after resizing to %d", budget).isLessThanOrEqualTo(budget * 17 / 16 + 64 * 1024);
                assertThat(store.stats().memoryBytes()).isLessThanOrEqualTo(budget);
                for (int i = 0; i < KEYS; i += 7) {
                    ByteBuffer dst = ByteBuffer.allocateDirect(VALUE);
                    assertThat(store.get(key(i), dst)).isEqualTo(VALUE);
                    assertThat(dst.flip()).isEqualTo(ByteBuffer.wrap(value(i)));
                }
            }
        }
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    private static void await(ResizeOperation op) throws Exception {
        if (op != null) {
            assertThat(op.await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
        }
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE];
        Arrays.fill(v, (byte) i);
        return v;
    }
}
