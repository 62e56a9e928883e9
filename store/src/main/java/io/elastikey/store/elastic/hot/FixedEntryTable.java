// FixedEntryTable -- many small entries of one fixed key and value width, off the heap, a slot each.
package io.elastikey.store.elastic.hot;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

/**
 * An open-addressing table in native memory whose entries all have the same key and value width, each stored whole
 * in its slot: no block, no header, no ring. Why beside {@link HotTier}: the key server keeps a second and third name
 * for each of a million keys (20 bytes pointing at a 32-byte key ID), and a tier entry costs a 64-byte block plus a
 * slot share for any entry, some 160 bytes for those 52; here a name costs its slot (56 bytes) at three quarters
 * full at most and half full after a growth, 75 to 112 bytes.
 *
 * <p>No budget and no eviction: the owner decides what goes in and, when the table must grow, which entries are
 * still worth keeping ({@code keepOnGrowth}), so entries it no longer needs are dropped then rather than copied.
 *
 * <p>Thread-safe. Lookups take no lock: a slot's key and value are written before its state says it is full
 * (a volatile write), and never change afterwards; a removal only marks the slot, and the slot is reused only in
 * the next table a growth builds. The entries are split over {@value #SEGMENTS} segments by hash, each its own table
 * with its own monitor for changes: a growth copies one segment's entries, not all of them, while changes elsewhere
 * go on (one table of two million names took over a second to grow, and every change waited for it). A growth
 * publishes the segment's new table, waits until no lookup is still in the old one ({@link ReaderEpochs}) and frees
 * it.
 */
public final class FixedEntryTable implements AutoCloseable {
    private static final int EMPTY = 0;
    private static final int FULL = 1;
    private static final int REMOVED = 2;
    private static final int STATE_BYTES = 4;
    /** Small: a segment starts at two slots, so a small cache's few names take a few slots, not 64 tables of 16. */
    private static final int FIRST_CAPACITY = 2;
    private static final int SEGMENTS = 64;
    private static final int SEGMENT_SHIFT = Long.SIZE - Integer.numberOfTrailingZeros(SEGMENTS);

    private final int keyBytes;
    private final int valueBytes;
    private final int slotBytes;
    private final BiPredicate<byte[], byte[]> keepOnGrowth;
    private final ReaderEpochs epochs = new ReaderEpochs();
    private final Segment[] segments = new Segment[SEGMENTS];

    /**
     * One table's memory: {@code capacity} slots of {@code slotBytes} at {@code address}, or none. Each table places
     * keys by its own {@code seed}: entries arriving in another table's slot order (a growth's copy, a snapshot written
     * by {@link #forEach}) are in hash order, and under one hash for all tables they would all land in the first part
     * of a table still growing, as one cluster every insertion walks to its end (a million names took minutes).
     */
    private record Slots(long address, long capacity, long seed) {
    }

    /** No memory at all: an empty table takes none until its first entry. */
    private static final Slots NONE = new Slots(0, 0, 0);

    /**
     * @param keepOnGrowth asked for each entry when the table is about to grow; an entry it refuses is dropped
     *                     instead of copied ({@code null}: keep all)
     */
    public FixedEntryTable(int keyBytes, int valueBytes, BiPredicate<byte[], byte[]> keepOnGrowth) {
        if (keyBytes <= 0 || valueBytes <= 0) {
            throw new IllegalArgumentException("keys and values need at least one byte each");
        }
        this.keyBytes = keyBytes;
        this.valueBytes = valueBytes;
        this.slotBytes = (STATE_BYTES + keyBytes + valueBytes + 7) & ~7;
        this.keepOnGrowth = keepOnGrowth;
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment();
        }
    }

    /** The value stored under {@code key} (a new array), or {@code null}. */
    public byte[] get(byte[] key) {
        checkKey(key);
        long hash = KeyHash.hash64(key);
        ReaderEpochs.Slot section = epochs.enter();
        try {
            Slots table = segmentOf(hash).slots;
            long at = find(table, key, hash);
            if (at == 0) {
                return null;
            }
            byte[] value = new byte[valueBytes];
            OffHeap.U.copyMemory(null, at + STATE_BYTES + keyBytes, value, OffHeap.BYTE_ARRAY_BASE, valueBytes);
            return value;
        } finally {
            epochs.exit(section);
        }
    }

    /** Stores {@code value} under {@code key}, in place of any value it had. */
    public void put(byte[] key, byte[] value) {
        checkKey(key);
        if (value.length != valueBytes) {
            throw new IllegalArgumentException("a value of this table has " + valueBytes + " bytes, not "
                    + value.length);
        }
        long hash = KeyHash.hash64(key);
        segmentOf(hash).put(key, value, hash);
    }

    /** Removes {@code key}; returns whether it was there. */
    public boolean remove(byte[] key) {
        checkKey(key);
        long hash = KeyHash.hash64(key);
        return segmentOf(hash).remove(key, hash);
    }

    /** Removes every entry, and gives back the memory. */
    public void clear() {
        for (Segment segment : segments) {
            segment.clear(false);
        }
    }

    /** Visits every entry (copies the visitor owns); changes to a segment wait while it is visited. */
    public void forEach(BiConsumer<byte[], byte[]> visitor) {
        for (Segment segment : segments) {
            segment.forEach(visitor);
        }
    }

    public long entries() {
        long entries = 0;
        for (Segment segment : segments) {
            entries += segment.entries();
        }
        return entries;
    }

    /** Native bytes the table's slots take. */
    public long reservedBytes() {
        long slots = 0;
        for (Segment segment : segments) {
            slots += segment.slots.capacity;
        }
        return slots * slotBytes;
    }

    /** Frees the native memory; lookups afterwards find nothing, changes fail. */
    @Override
    public void close() {
        for (Segment segment : segments) {
            segment.clear(true);
        }
    }

    /** The longest run of slots a lookup of a present key walks, over all segments (for tests of the placement). */
    long longestProbe() {
        long longest = 0;
        for (Segment segment : segments) {
            longest = Math.max(longest, segment.longestProbe());
        }
        return longest;
    }

    private Segment segmentOf(long hash) {
        return segments[(int) (hash >>> SEGMENT_SHIFT)];
    }

    /** One segment's table and counts; changes take its monitor. */
    private final class Segment {
        private volatile Slots slots = NONE;
        /** Slots marked full, and marked removed: both are occupied for probing. Guarded by {@code this}. */
        private long full;
        private long removed;
        private boolean closed;

        synchronized void put(byte[] key, byte[] value, long hash) {
            if (closed) {
                throw new IllegalStateException("the table is closed");
            }
            Slots table = slots;
            long old = find(table, key, hash);
            if (old != 0) {
                if (sameBytes(old + STATE_BYTES + keyBytes, value)) {
                    return;
                }
                markRemoved(old);
            }
            if ((full + removed + 1) * 4 > table.capacity * 3) {
                table = grow(table);
            }
            insert(table, key, value, hash);
            full++;
        }

        synchronized boolean remove(byte[] key, long hash) {
            long at = find(slots, key, hash);
            if (at == 0) {
                return false;
            }
            markRemoved(at);
            return true;
        }

        synchronized void clear(boolean close) {
            closed |= close;
            replace(NONE);
            full = 0;
            removed = 0;
        }

        synchronized void forEach(BiConsumer<byte[], byte[]> visitor) {
            Slots table = slots;
            for (long i = 0; i < table.capacity; i++) {
                long at = table.address + i * slotBytes;
                if (OffHeap.U.getInt(at) == FULL) {
                    visitor.accept(copy(at + STATE_BYTES, keyBytes), copy(at + STATE_BYTES + keyBytes, valueBytes));
                }
            }
        }

        synchronized long entries() {
            return full;
        }

        synchronized long longestProbe() {
            Slots table = slots;
            long longest = 0;
            for (long i = 0; i < table.capacity; i++) {
                long at = table.address + i * slotBytes;
                if (OffHeap.U.getInt(at) == FULL) {
                    byte[] key = copy(at + STATE_BYTES, keyBytes);
                    long distance = i - home(table, KeyHash.hash64(key));
                    longest = Math.max(longest, (distance < 0 ? distance + table.capacity : distance) + 1);
                }
            }
            return longest;
        }

        private void markRemoved(long at) {
            OffHeap.U.putIntVolatile(null, at, REMOVED);
            full--;
            removed++;
        }

        /**
         * A table for the entries {@code keepOnGrowth} keeps, at half full (so growing again waits until it holds half
         * as many again), published in place of {@code table}.
         */
        private Slots grow(Slots table) {
            Slots bigger = allocate(Math.max(FIRST_CAPACITY, (full + 1) * 2));
            long kept = 0;
            for (long i = 0; i < table.capacity; i++) {
                long at = table.address + i * slotBytes;
                if (OffHeap.U.getInt(at) != FULL) {
                    continue;
                }
                byte[] key = copy(at + STATE_BYTES, keyBytes);
                byte[] value = copy(at + STATE_BYTES + keyBytes, valueBytes);
                if (keepOnGrowth == null || keepOnGrowth.test(key, value)) {
                    insert(bigger, key, value, KeyHash.hash64(key));
                    kept++;
                }
            }
            replace(bigger);
            full = kept;
            removed = 0;
            return bigger;
        }

        /** Publishes {@code next}, waits for lookups still in the old table, frees it. */
        private void replace(Slots next) {
            Slots old = slots;
            slots = next;
            epochs.synchronize();
            if (old.capacity > 0) {
                OffHeap.free(old.address, old.capacity * slotBytes);
            }
        }
    }

    /** The address of the full slot holding {@code key}, or 0. */
    private long find(Slots table, byte[] key, long hash) {
        if (table.capacity == 0) {
            return 0;
        }
        long i = home(table, hash);
        for (long probed = 0; probed < table.capacity; probed++) {
            long at = table.address + i * slotBytes;
            int state = OffHeap.U.getIntVolatile(null, at);
            if (state == EMPTY) {
                return 0;
            }
            if (state == FULL && sameBytes(at + STATE_BYTES, key)) {
                return at;
            }
            i = i + 1 == table.capacity ? 0 : i + 1;
        }
        return 0;
    }

    /** Writes an entry into the first free slot of its probe sequence; the state goes last, published. */
    private void insert(Slots table, byte[] key, byte[] value, long hash) {
        long i = home(table, hash);
        long at = table.address + i * slotBytes;
        while (OffHeap.U.getInt(at) != EMPTY) {
            i = i + 1 == table.capacity ? 0 : i + 1;
            at = table.address + i * slotBytes;
        }
        OffHeap.U.copyMemory(key, OffHeap.BYTE_ARRAY_BASE, null, at + STATE_BYTES, keyBytes);
        OffHeap.U.copyMemory(value, OffHeap.BYTE_ARRAY_BASE, null, at + STATE_BYTES + keyBytes, valueBytes);
        OffHeap.U.putIntVolatile(null, at, FULL);
    }

    private Slots allocate(long capacity) {
        return new Slots(OffHeap.allocateZeroed(capacity * slotBytes), capacity, ThreadLocalRandom.current().nextLong());
    }

    /** Where a key's probe sequence starts: its hash under the table's seed, scaled onto the capacity. */
    private static long home(Slots table, long hash) {
        return Math.multiplyHigh(KeyHash.mix(hash ^ table.seed) >>> 1, table.capacity << 1);
    }

    private boolean sameBytes(long address, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (OffHeap.U.getByte(address + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] copy(long address, int length) {
        byte[] bytes = new byte[length];
        OffHeap.U.copyMemory(null, address, bytes, OffHeap.BYTE_ARRAY_BASE, length);
        return bytes;
    }

    private void checkKey(byte[] key) {
        if (key.length != keyBytes) {
            throw new IllegalArgumentException("a key of this table has " + keyBytes + " bytes, not " + key.length);
        }
    }
}
