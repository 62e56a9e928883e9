// OffHeapTest -- zeroed allocations are zero in every byte, whatever their size against the zeroing step.
package io.elastikey.store.elastic.hot;

import static io.elastikey.store.elastic.hot.OffHeap.U;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OffHeapTest {

    @Test
    void allocateZeroedZeroesEveryByteOfMemoryThatHeldDataBefore() {
        for (long bytes : new long[] {1, 4096, OffHeap.ZEROING_STEP, 3 * OffHeap.ZEROING_STEP + 100}) {
            long before = OffHeap.allocatedBytes();
            long dirty = OffHeap.allocate(bytes);
            U.setMemory(dirty, bytes, (byte) 0x5a);
            OffHeap.free(dirty, bytes); // malloc likely hands the same memory out again
            long address = OffHeap.allocateZeroed(bytes);
            try {
                for (long i = 0; i < bytes; i++) {
                    if (U.getByte(address + i) != 0) {
                        throw new AssertionError("byte " + i + " of " + bytes + " not zeroed");
                    }
                }
                assertThat(OffHeap.allocatedBytes()).isEqualTo(before + bytes);
            } finally {
                OffHeap.free(address, bytes);
            }
        }
    }
}
