// SlotArray -- a power-of-two array of 16-byte slots in native memory, the layout both in-memory tables probe.
package io.elastikey.store.elastic.hot;

/**
 * One slot array of an open-addressing table ({@link OffHeapTable}, {@link LocationTable}): its native address and
 * index mask. Made zeroed (every slot empty), owned by its table, freed with {@link #free} once no reader can be
 * probing it ({@link RetiredSlotArrays}).
 */
record SlotArray(long base, int mask) {

    static final int SLOT_SHIFT = 4;

    /** A zeroed array of {@code capacity} slots (a power of two), running {@code eachStep} while it is zeroed. */
    static SlotArray allocate(int capacity, Runnable eachStep) {
        return new SlotArray(OffHeap.allocateZeroed((long) capacity << SLOT_SHIFT, eachStep), capacity - 1);
    }

    /** The address of slot {@code i}. */
    long slot(long i) {
        return base + (i << SLOT_SHIFT);
    }

    long bytes() {
        return (long) (mask + 1) << SLOT_SHIFT;
    }

    /** Slots in use (live and deleted) past which the table rebuilds: 3/4, so a probe path stays short. */
    long maxLoad() {
        return (mask + 1L) * 3 / 4;
    }

    void free() {
        OffHeap.free(base, bytes());
    }
}
