// OffHeapTable -- the memory tier's map: open addressing over native slots, lookups without locks or allocation.
package io.elastikey.store.elastic.hot;

import static io.elastikey.store.elastic.hot.OffHeap.BYTE_ARRAY_BASE;
import static io.elastikey.store.elastic.hot.OffHeap.U;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;

/**
 * A hash map from byte-string keys to byte-string values, all in native memory, built for one thing: a lookup that
 * costs a slot read, a header read and the value's copy. Chronicle Map, the previous memory tier, spent about 1 µs
 * per lookup in its query context (segment lock, context bookkeeping) before copying a byte (docs/benchmarks.md).
 *
 * <h2>Layout</h2>
 * A power-of-two array of 16-byte slots, linear probing from the key's hash:
 * <pre>
 *  0  long  tag    0 empty, 1 deleted (a tombstone), otherwise the key's 64-bit hash (0 and 1 moved to 2 and 3)
 *  8  long  block  address of the entry's {@link EntryBlock} in the {@link SlabArena}
 * </pre>
 * Four slots share a cache line, so a probe is one miss, and the full 64-bit hash keeps a lookup from touching any
 * block but the right one except on a true 64-bit collision. Deletes leave a tombstone, reused by the next insert
 * along the same probe; when slots in use (live and tombstones) pass 3/4, the array is rebuilt (doubled if live
 * entries pass 3/8, else the same size, which only drops the tombstones).
 *
 * <h2>Concurrency</h2>
 * One writer at a time (the mutators are synchronized); any number of readers without a lock:
 * <ul>
 *   <li>An insert writes the block, then the slot's block address, then its tag (a release store), so a reader that
 *       sees the tag sees a complete entry. A replace writes a new block and swaps the address; a delete writes a
 *       tombstone. Either way the old block returns to the arena at once and may be rewritten while a reader still
 *       copies it: the block's stamp tells the reader, which starts over ({@link EntryBlock}).
 *   <li>A rebuild publishes a new slot array and retires the old one, which readers may still be probing. It is
 *       freed once the store's {@link ReaderEpochs} show that every reader that could have seen it has left (checked
 *       on later writes, and at close), the same reclamation that frees a whole tier after a resize.
 * </ul>
 * A lookup therefore returns a value the key had at some moment during the call. Callers read inside a
 * {@link ReaderEpochs} section; {@link #close()} is called only once none can be inside.
 */
final class OffHeapTable implements AutoCloseable {

    static final int NOT_FOUND = -1;
    private static final long EMPTY = SlotArray.EMPTY;
    private static final long TOMBSTONE = SlotArray.TOMBSTONE;
    private static final int MAX_CAPACITY = 1 << 30;
    /** Retries a reader spins for before it yields: a writer holds a block for a microsecond at most. */
    private static final int SPINS = 64;

    private final SlabArena arena;
    private volatile SlotArray slots;
    private final RetiredSlotArrays retired;
    private long live;
    private long tombstones;

    /**
     * A table laid out for about {@code expectedEntries} (it grows past them), whose arena takes chunks of about
     * {@code chunkBytes}, reclaimed through {@code epochs}.
     */
    OffHeapTable(long expectedEntries, long chunkBytes, ReaderEpochs epochs) {
        this(expectedEntries, chunkBytes, epochs, () -> { });
    }

    /** As the constructor above, running {@code step} while the slot array is zeroed (a grow's, at idle priority). */
    OffHeapTable(long expectedEntries, long chunkBytes, ReaderEpochs epochs, Runnable step) {
        this.arena = new SlabArena(chunkBytes);
        long wanted = Math.max(16, Math.min(MAX_CAPACITY, expectedEntries * 2));
        this.retired = new RetiredSlotArrays(epochs);
        this.slots = SlotArray.allocate((int) Long.highestOneBit(wanted * 2 - 1), step);
    }

    // ---- lookups: lock-free, inside a ReaderEpochs section ----

    /**
     * Copies the value of {@code key} (whose {@link KeyHash#hash64} is {@code hash}) into {@code dst} at its position,
     * advancing it, if it fits.
     *
     * @return the value's length, or {@link #NOT_FOUND}
     */
    int get(byte[] key, long hash, ByteBuffer dst) {
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        int at = dst.position();
        int room = dst.remaining();
        int n = dst.isDirect()
                ? find(key, hash, null, OffHeap.address(dst) + at, room)
                : find(key, hash, dst.array(), BYTE_ARRAY_BASE + dst.arrayOffset() + at, room);
        if (n >= 0 && n <= room) {
            dst.position(at + n);
        }
        return n;
    }

    /** The value of {@code key} as a new array, or null. */
    byte[] get(byte[] key, long hash) {
        for (;;) {
            int n = find(key, hash, null, 0, -1);
            if (n < 0) {
                return null;
            }
            byte[] out = new byte[n];
            int m = find(key, hash, out, BYTE_ARRAY_BASE, n);
            if (m == n) {
                return out;
            }
            if (m < 0) {
                return null; // deleted between the two reads
            }
        }
    }

    private int find(byte[] key, long hash, Object dstBase, long dstOffset, int room) {
        long tag = tagOf(hash);
        for (int attempt = 1; ; attempt++) {
            SlotArray s = slots;
            if (s == null) {
                return NOT_FOUND; // closed
            }
            int r = probe(s, key, tag, dstBase, dstOffset, room);
            if (r != EntryBlock.RETRY) {
                return r;
            }
            if (attempt % SPINS == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private int probe(SlotArray s, byte[] key, long tag, Object dstBase, long dstOffset, int room) {
        int mask = s.mask();
        int i = (int) tag & mask;
        for (int probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
            long slot = s.slot(i);
            long t = U.getLongVolatile(null, slot);
            if (t == EMPTY) {
                return NOT_FOUND;
            }
            if (t == tag) {
                long block = U.getLongVolatile(null, slot + 8);
                long stamp = EntryBlock.stamp(block);
                int r = EntryBlock.read(block, key, dstBase, dstOffset, room);
                if (r != EntryBlock.MISMATCH) {
                    return r;
                }
                if (!stillCurrent(s, slot, tag, block, stamp)) {
                    return EntryBlock.RETRY;
                }
            }
        }
        return NOT_FOUND;
    }

    /**
     * Whether a block that held another key was really this slot's, in the published array: then the other key
     * shares all 64 bits of the hash and the probe goes on. Otherwise the reader met a block the writer had already
     * replaced, freed and given to another key (or probed an array a rebuild had retired), and a probe that went
     * on would report a present key absent.
     */
    private boolean stillCurrent(SlotArray s, long slot, long tag, long block, long stamp) {
        return U.getLongVolatile(null, slot + 8) == block
                && U.getLongVolatile(null, slot) == tag
                && EntryBlock.stamp(block) == stamp
                && slots == s;
    }

    // ---- the single writer ----

    /** The length of the key's value, or -1 when absent. */
    synchronized int valueLength(byte[] key, long hash) {
        long slot = slotOf(key, tagOf(hash));
        return slot == 0 ? -1 : EntryBlock.valueLength(U.getLong(slot + 8));
    }

    /**
     * The key of the live entry whose key hashes to {@code hash} (its {@link KeyHash#hash64}), as a new array, or null.
     * Should two keys share all 64 bits, either may come back.
     */
    synchronized byte[] keyOf(long hash) {
        long slot = slotOfHash(tagOf(hash));
        return slot == 0 ? null : EntryBlock.key(U.getLong(slot + 8));
    }

    /** The value length of the live entry whose key hashes to {@code hash}, or -1; see {@link #keyOf}. */
    synchronized int valueLengthOf(long hash) {
        long slot = slotOfHash(tagOf(hash));
        return slot == 0 ? -1 : EntryBlock.valueLength(U.getLong(slot + 8));
    }

    /**
     * Stores the value, replacing the key's old one.
     *
     * @throws OutOfMemoryError when native memory for a chunk or a larger slot array cannot be had
     */
    synchronized void put(byte[] key, long hash, byte[] value) {
        put(key, hash, value, OffHeap.BYTE_ARRAY_BASE, value.length, true);
    }

    /**
     * As {@link #put(byte[], long, byte[])} for a value anywhere {@link EntryBlock#write} can read it (an array, or
     * native memory); with {@code mayTouchNew} false only if that needs no memory touched for the first time (no
     * fresh chunk, no larger slot array: see {@link SlabArena}), else nothing changes.
     *
     * @return whether the value was stored
     */
    synchronized boolean put(byte[] key, long hash, Object valueBase, long valueOffset, int valueLength,
                             boolean mayTouchNew) {
        checkOpen();
        long tag = tagOf(hash);
        long existing = slotOf(key, tag);
        if (existing == 0 && live + tombstones + 1 > slots.maxLoad()) {
            if (!mayTouchNew) {
                return false;
            }
            rebuild(live + 1);
        }
        long block = arena.allocate(EntryBlock.need(key.length, valueLength), mayTouchNew);
        if (block == 0) {
            return false;
        }
        EntryBlock.write(block, key, valueBase, valueOffset, valueLength);
        if (existing != 0) {
            long old = U.getLong(existing + 8);
            U.putOrderedLong(null, existing + 8, block);
            arena.free(old);
        } else {
            long slot = slots.freeSlot(tag);
            if (U.getLong(slot) == TOMBSTONE) {
                tombstones--;
            }
            U.putLong(slot + 8, block);
            U.putOrderedLong(null, slot, tag); // publishes the block written above
            live++;
        }
        retired.reclaim();
        return true;
    }

    /**
     * Touches a new chunk ({@link #chunkBytes}: zeroes it, which faults in every page) and hands it to the arena, on
     * the calling thread and outside the table's lock (a chunk is nobody's until handed over): a grow's background
     * fill does this so that lookups admitting misses never take a page fault ({@link SlabArena}, "Prepared chunks").
     * {@code eachStep} runs between zeroing steps, for pacing and cancellation.
     *
     * @return false when the table was closed meanwhile (the chunk is freed)
     */
    boolean prepareChunk(Runnable eachStep) {
        long chunk = arena.chunkTarget();
        long address = OffHeap.allocateZeroed(chunk, eachStep);
        synchronized (this) {
            if (slots == null) { // closed meanwhile
                OffHeap.free(address, chunk);
                return false;
            }
            arena.addPrepared(address);
            return true;
        }
    }

    /** The size of the chunks the table's arena takes. */
    long chunkBytes() {
        return arena.chunkTarget();
    }

    /** Removes the key; returns its value's length, or -1 when it was absent. */
    synchronized int remove(byte[] key, long hash) {
        checkOpen();
        long slot = slotOf(key, tagOf(hash));
        if (slot == 0) {
            return -1;
        }
        long block = U.getLong(slot + 8);
        int length = EntryBlock.valueLength(block);
        U.putLongVolatile(null, slot, TOMBSTONE);
        arena.free(block);
        live--;
        tombstones++;
        retired.reclaim();
        return length;
    }

    /** Live entries. */
    synchronized long size() {
        return live;
    }

    /** Native bytes held: the arena's chunks, the slot array and slot arrays awaiting reclamation. */
    synchronized long reservedBytes() {
        SlotArray s = slots;
        return arena.reservedBytes() + (s == null ? 0 : s.bytes()) + retired.bytes();
    }

    /** Slot arrays unpublished but not yet freed (tests watch this drain). */
    synchronized int retiredArrays() {
        retired.reclaim();
        return retired.count();
    }

    /** The slot of {@code key} ({@code null}: of any key with this tag), or 0. */
    private long slotOf(byte[] key, long tag) {
        SlotArray s = slots;
        if (s == null) {
            return 0;
        }
        int mask = s.mask();
        int i = (int) tag & mask;
        for (int probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
            long slot = s.slot(i);
            long t = U.getLong(slot);
            if (t == EMPTY) {
                return 0;
            }
            if (t == tag && (key == null || EntryBlock.holds(U.getLong(slot + 8), key))) {
                return slot;
            }
        }
        return 0;
    }

    /** The first live slot with this tag, whatever its key, or 0. */
    private long slotOfHash(long tag) {
        return slotOf(null, tag);
    }

    /** Copies the live slots into a fresh array sized for {@code entries}, publishes it, retires the old one. */
    private void rebuild(long entries) {
        SlotArray old = slots;
        long capacity = old.mask() + 1L;
        while (entries > capacity * 3 / 8 && capacity < MAX_CAPACITY) {
            capacity *= 2;
        }
        if (entries > capacity * 3 / 4) {
            throw new OutOfMemoryError("memory tier table is at its largest, " + MAX_CAPACITY + " slots");
        }
        SlotArray fresh = old.rehashed((int) capacity, tag -> tag != EMPTY && tag != TOMBSTONE, tag -> tag);
        tombstones = 0;
        slots = fresh; // volatile: readers that load it see the copies above
        retired.retire(old);
    }

    /** The hash as a tag: never one of the two markers. */
    private static long tagOf(long hash) {
        return hash == EMPTY || hash == TOMBSTONE ? hash + 2 : hash;
    }

    private void checkOpen() {
        if (slots == null) {
            throw new IllegalStateException("memory tier table closed");
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
        arena.close();
        live = 0;
        tombstones = 0;
    }
}
