// SlotArray -- a power-of-two array of 16-byte slots in native memory, the layout both in-memory tables probe.
package io.elastikey.store.elastic.hot;

import static io.elastikey.store.elastic.hot.OffHeap.U;

import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;

/**
 * One slot array of an open-addressing table ({@link OffHeapTable}, {@link LocationTable}): its native address and
 * index mask. Made zeroed (every slot empty), owned by its table, freed with {@link #free} once no reader can be
 * probing it ({@link RetiredSlotArrays}). A slot's first word is {@link #EMPTY}, {@link #TOMBSTONE} or the table's own
 * head; a probe path is linear from the slot the head's low bits name. What a head means, and how a probe matches
 * one, is each table's; finding a free slot and rehashing into a larger array are the same for both, and are here.
 */
record SlotArray(long base, int mask) {

    static final int SLOT_SHIFT = 4;
    /** A first word never written: the end of every probe path through it. */
    static final long EMPTY = 0;
    /** A first word of a deleted entry: probes go on past it, and a write may take it. */
    static final long TOMBSTONE = 1;

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

    /**
     * The first empty or tombstoned slot on the probe path from {@code home}. There is one: the owner rebuilds before
     * {@link #maxLoad} is passed.
     */
    long freeSlot(long home) {
        for (long i = home & mask; ; i = (i + 1) & mask) {
            long slot = slot(i);
            long first = U.getLong(slot);
            if (first == EMPTY || first == TOMBSTONE) {
                return slot;
            }
        }
    }

    /**
     * A new zeroed array of {@code capacity} slots holding a copy of each of this one's slots whose first word
     * {@code live} accepts, on the probe path from the home {@code homeOf} gives that word: what a rebuild publishes.
     * Plain writes; the owner publishes the array with a volatile write.
     */
    SlotArray rehashed(int capacity, LongPredicate live, LongUnaryOperator homeOf) {
        SlotArray fresh = allocate(capacity, () -> { });
        for (long i = 0; i <= mask; i++) {
            long from = slot(i);
            long first = U.getLong(from);
            if (live.test(first)) {
                long to = fresh.freeSlot(homeOf.applyAsLong(first));
                U.putLong(to + 8, U.getLong(from + 8));
                U.putLong(to, first);
            }
        }
        return fresh;
    }

    void free() {
        OffHeap.free(base, bytes());
    }
}
