// LocationTable -- the index's locations again, in native memory, found by the key's hash with one cache miss.
package io.elastikey.store.elastic.hot;

import static io.elastikey.store.elastic.hot.OffHeap.U;

import io.elastikey.store.elastic.index.Location;

/**
 * A copy of the persisted index's locations (key to segment, offset, record length) kept in memory, for the lookups
 * that miss the memory tier. Chronicle Map, which persists the index, took a quarter of such a lookup's CPU at a
 * million keys (a segment lock, a stop-bit decoded key size, a key compare: three or four cache misses); here a slot
 * holds the location itself, so a lookup is one cache miss and no lock.
 *
 * <p>A slot has no key, only the hash's high 40 bits (the tag, whose low bits also pick the slot), and only the low
 * {@value #SEGMENT_BITS} bits of the segment id ({@code Log.segmentEndingIn} finds the segment while the live
 * segments' ids span fewer than 2^24, and none past that, when lookups go to the index). So what {@link #find} gives is a
 * <b>hint</b>: the caller reads the record there and checks its key, as every read of the log does
 * ({@code RecordReader}), and asks the index when the hint is wrong or missing. Two keys whose tags agree (which
 * only keys of one home slot can: one pair in 2^19 of them at a million keys) share a slot: the later
 * {@link #put} takes it, and the other key's lookups go to the index. So the table never decides a lookup's
 * answer: it may only make it cheaper. It is not persisted and takes no part in recovery; the store fills it after
 * opening and updates it wherever it updates the index, under the same write lock.
 *
 * <h2>Slot layout (16 bytes, native order)</h2>
 * <pre>
 *  0  long  head   tag (high 40 bits of the hash, never 0) &lt;&lt; 24 | segment id's low 24 bits;
 *                  or EMPTY, TOMBSTONE, BUSY
 *  8  long  place  offset &lt;&lt; 32 | record length
 * </pre>
 *
 * <h2>Concurrency</h2>
 * One writer at a time (the mutators are synchronized; the store calls them under its write lock anyway); readers
 * take no lock. A reader loads {@code head}, then {@code place}, then {@code head} again, and trusts the pair only
 * when both loads of {@code head} agree. A writer changes a slot's {@code place} alone when the key stays in the same
 * segment (any {@code place} a reader loads is then a whole location of that key), and otherwise marks the slot BUSY
 * first, so a reader that loaded the old head sees it change. Not caught: a slot that comes back to a head it had
 * while a reader is between its loads (the key deleted and put again in the same segment, or the slot taken by
 * another key and then by this one again) may pair that head with a place from in between. The log never moves a
 * key back to an older segment, so this takes a delete and a put within one reader's few nanoseconds, and the
 * caller's check of the record turns such a pair away like any wrong hint. Rebuilds publish a new array and free the old one once
 * the store's {@link ReaderEpochs} show no reader inside ({@link RetiredSlotArrays}, as for {@link OffHeapTable}):
 * callers of {@link #find} are inside a {@link ReaderEpochs} section.
 */
public final class LocationTable implements AutoCloseable {

    private static final long EMPTY = SlotArray.EMPTY;
    private static final long TOMBSTONE = SlotArray.TOMBSTONE;
    private static final long BUSY = 2;
    private static final int MIN_CAPACITY = 1024;
    private static final int MAX_CAPACITY = 1 << 30;
    /** Bits of a segment id a slot keeps. */
    public static final int SEGMENT_BITS = 24;
    private static final long SEGMENT_MASK = (1L << SEGMENT_BITS) - 1;

    private volatile SlotArray slots;
    private final RetiredSlotArrays retired;
    private long live;
    private long tombstones;

    /** An empty table with room for about {@code expectedEntries} before its first rebuild. */
    public LocationTable(long expectedEntries, ReaderEpochs epochs) {
        this.retired = new RetiredSlotArrays(epochs);
        this.slots = SlotArray.allocate(capacityFor(expectedEntries), () -> { });
    }

    // ---- lookups: lock-free, inside a ReaderEpochs section ----

    /**
     * Fills {@code out} with the location last {@link #put} for a key of this {@link KeyHash#hash64}, or returns false
     * when there is none (or a writer was changing it): a hint, to be checked against the record's key. Its segment
     * id is the low {@value #SEGMENT_BITS} bits only.
     */
    public boolean find(long hash, Location out) {
        SlotArray s = slots;
        if (s == null) {
            return false;
        }
        long tag = tagOf(hash);
        int mask = s.mask();
        int i = (int) tag & mask;
        for (int probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
            long slot = s.slot(i);
            long head = U.getLongVolatile(null, slot);
            if (head == EMPTY) {
                return false;
            }
            if (head >>> SEGMENT_BITS == tag) {
                long place = U.getLongVolatile(null, slot + 8);
                if (U.getLongVolatile(null, slot) != head) {
                    return false;
                }
                out.set((int) (head & SEGMENT_MASK), (int) (place >>> 32), (int) place);
                return true;
            }
        }
        return false;
    }

    // ---- the single writer ----

    /** Points the hash's slot at this location, taking it over from a key that shares the slot's tag. */
    public synchronized void put(long hash, int segmentId, int offset, int length) {
        checkOpen();
        long head = tagOf(hash) << SEGMENT_BITS | (segmentId & SEGMENT_MASK);
        long place = (long) offset << 32 | (length & 0xFFFFFFFFL);
        long slot = slotOf(hash);
        if (slot != 0) {
            if (U.getLong(slot) != head) {
                U.putLongVolatile(null, slot, BUSY); // a reader holding the old head sees it change
            }
            U.putLongVolatile(null, slot + 8, place);
            U.putLongVolatile(null, slot, head);
        } else {
            if (live + tombstones + 1 > slots.maxLoad()) {
                rebuild(live + 1);
            }
            slot = slots.freeSlot(tagOf(hash));
            if (U.getLong(slot) == TOMBSTONE) {
                tombstones--;
            }
            U.putLong(slot + 8, place);
            U.putLongVolatile(null, slot, head); // publishes the place written above
            live++;
        }
        retired.reclaim();
    }

    /** Forgets the hash's location; its lookups go to the index. */
    public synchronized void remove(long hash) {
        checkOpen();
        long slot = slotOf(hash);
        if (slot != 0) {
            U.putLongVolatile(null, slot, TOMBSTONE);
            live--;
            tombstones++;
        }
        retired.reclaim();
    }

    /** Locations held. */
    public synchronized long size() {
        return live;
    }

    /** Native bytes the table holds now, retired arrays not yet freed included. */
    public synchronized long bytes() {
        SlotArray s = slots;
        return (s == null ? 0 : s.bytes()) + retired.bytes();
    }

    /** The live slot of this hash's tag, or 0. */
    private long slotOf(long hash) {
        SlotArray s = slots;
        long tag = tagOf(hash);
        int mask = s.mask();
        int i = (int) tag & mask;
        for (int probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
            long slot = s.slot(i);
            long head = U.getLong(slot);
            if (head == EMPTY) {
                return 0;
            }
            if (head >>> SEGMENT_BITS == tag) {
                return slot;
            }
        }
        return 0;
    }

    /** Copies the live slots into a fresh array with room for twice {@code entries}, publishes it, retires the old. */
    private void rebuild(long entries) {
        SlotArray old = slots;
        // a tag's low bits are its home slot; a busy slot is mid-change, and its key's lookups go to the index
        SlotArray fresh = old.rehashed(capacityFor(entries),
                head -> head != EMPTY && head != TOMBSTONE && head != BUSY, head -> head >>> SEGMENT_BITS);
        tombstones = 0;
        slots = fresh; // volatile: readers that load it see the copies above
        retired.retire(old);
    }

    /** The smallest power of two that holds {@code entries} at half load. */
    static int capacityFor(long entries) {
        long wanted = Math.max(MIN_CAPACITY, Math.min(MAX_CAPACITY, entries * 2));
        int capacity = (int) Long.highestOneBit(wanted * 2 - 1);
        if (entries > (long) capacity * 3 / 4) {
            throw new OutOfMemoryError("location table is at its largest, " + MAX_CAPACITY + " slots");
        }
        return capacity;
    }

    /** The hash's high 40 bits, never 0 (which would make an EMPTY, TOMBSTONE or BUSY head). */
    private static long tagOf(long hash) {
        long tag = hash >>> SEGMENT_BITS;
        return tag == 0 ? 1 : tag;
    }

    private void checkOpen() {
        if (slots == null) {
            throw new IllegalStateException("location table closed");
        }
    }

    /** Frees everything. The caller guarantees that no reader is inside and none will come. */
    @Override
    public synchronized void close() {
        SlotArray s = slots;
        if (s == null) {
            return;
        }
        slots = null;
        s.free();
        retired.freeAll();
        live = 0;
        tombstones = 0;
    }
}
