// HotTier -- the in-memory table: values of the chosen entries off-heap in an OffHeapTable, within a byte budget.
package io.elastikey.store.elastic.hot;

import io.elastikey.store.KeyValueStore;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToIntFunction;

/**
 * One in-memory table with a fixed budget. Its values live off-heap in an {@link OffHeapTable} (native slots and
 * a slab of entry blocks) that allocates as it fills; memory returns to the OS only when the table is closed, so
 * the store changes the budget by building a new table and retiring this one (see {@code Resizer}).
 *
 * <h2>Accounting</h2>
 * Each entry costs what it really takes ({@link #cost}): its block in the slab (24-byte header, key, value, rounded
 * up to the block's size class) and {@link #SLOT_SHARE} bytes of slot array. An entry that would not fit, or is
 * bigger than an eighth of the budget, is simply not admitted. What the costs do not count is slack: the unused
 * end of the chunk each size class is carving, and freed blocks of a size no longer written
 * ({@link #reservedBytes()} reports the native bytes actually held).
 *
 * <h2>Victims</h2>
 * Admitted keys join a FIFO ring, as their 64-bit hashes in one array of longs ({@link LongRing}; a copy of each key
 * on the heap was a million live objects for young collections to copy while a resize admitted them). When an
 * admission needs room, the head of the ring is the victim (its key read back from the table):
 * under {@code FREQUENCY} the newcomer must be strictly more frequent than it (TinyLFU),
 * otherwise the victim gets a second chance at the tail and the newcomer is refused. Keys removed
 * by writes stay in the ring until they reach its head and are skipped there.
 *
 * <p>Thread safety: lookups take no lock and must run inside a section of the {@link ReaderEpochs} given at
 * creation. Mutations take this tier's lock for the accounting and the ring (a miss's admission only if it is free,
 * {@link #tryAdmit}); callers also hold the key's stripe lock, which orders them against writes to the same key.
 */
public final class HotTier implements AutoCloseable {

    /** How much more frequent a newcomer must be than its victim; see {@link #beats}. */
    static final int ADMISSION_MARGIN = 1;

    /** Budget bytes charged per entry for its share of the slot array (16-byte slots, at most half full). */
    public static final int SLOT_SHARE = 32;

    /** The least any entry costs: a smallest block and a slot share. A tier with less room left is full. */
    public static final int MIN_ENTRY_COST = 64 + SLOT_SHARE;

    /** A tier with no budget: every lookup misses, nothing is admitted. */
    public static HotTier empty() {
        return new HotTier(0, null, 0);
    }

    /** Held by every mutation and by the reads that walk the ring; lookups never take it. */
    private final ReentrantLock lock = new ReentrantLock();
    private final long budgetBytes;
    private final OffHeapTable table;
    private final LongRing ring;
    private long usedBytes;
    private long evictions;
    private volatile long usedBytesView;
    private volatile long evictionsView;
    private volatile long entriesView;
    private volatile boolean hasVictimView;
    private volatile long victimHashView;
    /** While set, a miss's admission ({@link #tryAdmit}) uses only memory already touched; see {@link #prepare}. */
    private volatile boolean admitsIntoPreparedOnly;
    /** Whether such an admission found no touched memory since more was prepared ({@link #mightAdmit} reads it). */
    private volatile boolean preparedMemoryUsedUp;

    private HotTier(long budgetBytes, OffHeapTable table, int expectedEntries) {
        this.budgetBytes = budgetBytes;
        this.table = table;
        this.ring = new LongRing(expectedEntries);
    }

    /**
     * A new, empty tier for {@code budgetBytes}, its slot array laid out for entries of about the given sizes (it
     * grows if they come smaller); its lookups run inside {@code epochs}' sections.
     */
    public static HotTier create(long budgetBytes, int averageKeySize, int averageValueSize, ReaderEpochs epochs) {
        return create(budgetBytes, averageKeySize, averageValueSize, epochs, () -> { });
    }

    /**
     * As {@link #create(long, int, int, ReaderEpochs)}, running {@code step} while the slot array (tens of megabytes
     * at a million entries) is zeroed: a grow makes its table on an idle-priority thread, paced and cancellable.
     */
    public static HotTier create(long budgetBytes, int averageKeySize, int averageValueSize, ReaderEpochs epochs,
                                 Runnable step) {
        return create(budgetBytes, budgetBytes / cost(averageKeySize, averageValueSize), epochs, step);
    }

    /**
     * A new, empty tier for {@code budgetBytes} whose slot array starts laid out for {@code expectedEntries} and
     * grows as entries come: for a tier that may well stay nearly empty (a cache that many tests create and few
     * fill), where a slot array sized for the whole budget up front would be native memory touched for nothing.
     */
    public static HotTier create(long budgetBytes, long expectedEntries, ReaderEpochs epochs) {
        return create(budgetBytes, expectedEntries, epochs, () -> { });
    }

    private static HotTier create(long budgetBytes, long expectedEntries, ReaderEpochs epochs, Runnable step) {
        if (budgetBytes <= 0) {
            return empty();
        }
        long expected = Math.max(16, expectedEntries);
        long chunk = Math.max(4096, Math.min(4L << 20, budgetBytes / 16));
        return new HotTier(budgetBytes, new OffHeapTable(expected, chunk, epochs, step),
                (int) Math.min(1 << 21, expected + expected / 8));
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    public long usedBytes() {
        return usedBytesView;
    }

    public long entries() {
        return entriesView;
    }

    /** Entries removed to make room for others since the tier was made. */
    public long evictions() {
        return evictionsView;
    }

    /** Budget bytes an entry takes in the tier: its slab block and its share of the slot array. */
    public static long cost(int keyLength, int valueLength) {
        return (long) SlabArena.blockSize(EntryBlock.need(keyLength, valueLength)) + SLOT_SHARE;
    }

    /** Native bytes the tier holds now (its table's chunks and slot arrays), whatever the costs say. */
    public long reservedBytes() {
        return table == null ? 0 : table.reservedBytes();
    }

    /** Whether an entry of this size could ever be admitted. */
    public boolean admissible(int keyLength, int valueLength) {
        return table != null && cost(keyLength, valueLength) <= Math.max(budgetBytes / 8, 1 << 16)
                && cost(keyLength, valueLength) <= budgetBytes;
    }

    /**
     * Copies the value into {@code dst} if it fits.
     *
     * @return the value's length, or {@link KeyValueStore#NOT_FOUND}
     */
    public int get(byte[] key, ByteBuffer dst) {
        return get(key, KeyHash.hash64(key), dst);
    }

    /** {@link #get(byte[], ByteBuffer)} for a caller that has the key's {@link KeyHash#hash64} already. */
    public int get(byte[] key, long hash, ByteBuffer dst) {
        if (table == null) {
            return KeyValueStore.NOT_FOUND;
        }
        int n = table.get(key, hash, dst);
        return n < 0 ? KeyValueStore.NOT_FOUND : n;
    }

    /** The value as a new array, or null. */
    public byte[] get(byte[] key) {
        return get(key, KeyHash.hash64(key));
    }

    /** {@link #get(byte[])} for a caller that has the key's {@link KeyHash#hash64} already. */
    public byte[] get(byte[] key, long hash) {
        return table == null ? null : table.get(key, hash);
    }

    /** Whether the key is in the tier (takes the tier's lock: not for the lookup path). */
    public boolean contains(byte[] key) {
        lock.lock();
        try {
            return table != null && table.valueLength(key, KeyHash.hash64(key)) >= 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A cheap guess whether {@link #tryAdmit} would take an entry of this size and frequency:
     * there is room, or the oldest entry (the next victim) is less frequent. Lets a miss skip
     * copying its value when the answer is no. When the victim wins it gets its second chance
     * here, as in a refused {@link #tryAdmit} ({@link #passOver}).
     */
    public boolean mightAdmit(int keyLength, int valueLength, long candidateHash, FrequencySketch sketch) {
        if (!admissible(keyLength, valueLength) || admitsIntoPreparedOnly && preparedMemoryUsedUp) {
            return false; // (the second: a miss would copy its value to the heap for nothing)
        }
        if (usedBytesView + cost(keyLength, valueLength) <= budgetBytes) {
            return true;
        }
        if (!hasVictimView) {
            return false;
        }
        long victimHash = victimHashView;
        if (beats(sketch.frequency(candidateHash), sketch.frequency(victimHash))) {
            return true;
        }
        passOver(victimHash);
        return false;
    }

    /**
     * Moves the victim that just won to the ring's tail, so the next miss meets the next one. Without it the
     * check above, which refuses before any admission runs, would meet the same victim on every miss: one that
     * no newcomer can beat (a count saturated at 15, or a key that was hot a while ago) froze the tier until the
     * sketch aged, which a sketch sized for millions of keys does after tens of millions of lookups (seen: a tier
     * of 111,608 entries kept 4% hits under a Zipf load after a benchmark had read 20,000 keys 15 times each).
     * Never waits for the lock: whoever holds it is changing the ring anyway.
     */
    private void passOver(long victimHash) {
        if (!lock.tryLock()) {
            return;
        }
        try {
            if (!ring.isEmpty() && ring.peekFirst() == victimHash) {
                ring.addLast(ring.pollFirst());
                publish();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * TinyLFU's test with a margin: the newcomer must be more frequent than the victim by more
     * than {@link #ADMISSION_MARGIN}. Under a uniform workload estimates differ by noise, and
     * admitting on noise only churns 4 KB copies in and out; a skewed workload's hot keys clear
     * the margin at once.
     */
    static boolean beats(int candidateFrequency, int victimFrequency) {
        return candidateFrequency > victimFrequency + ADMISSION_MARGIN;
    }

    /**
     * Stores the value if there is room without evicting anything, replacing the key's old value.
     * When the new value does not fit, the old one is dropped rather than left stale. Returns
     * whether the key is now in the tier.
     */
    public boolean putIfRoom(byte[] key, byte[] value) {
        return putIfRoom(key, KeyHash.hash64(key), value);
    }

    /** {@link #putIfRoom(byte[], byte[])} for a caller that has the key's {@link KeyHash#hash64} already. */
    public boolean putIfRoom(byte[] key, long hash, byte[] value) {
        lock.lock();
        try {
            return admitLocked(key, hash, value, OffHeap.BYTE_ARRAY_BASE, value.length, null, 0, true);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A miss's offer: admits the entry, evicting ring victims less frequent than {@code frequencyOf(key)} as needed,
     * unless another thread is inside the tier (a write, a resize's copy, another admission); then it gives up at
     * once. A cache loses nothing by skipping one admission, while waiting made every miss queue behind the one
     * being admitted: after a grow, with room for every miss, 200,000 lookups a second fell to 40,000 on this
     * lock. Returns whether the key is now in the tier.
     */
    public boolean tryAdmit(byte[] key, byte[] value, ToIntFunction<byte[]> frequencyOf, int frequency) {
        return tryAdmit(key, KeyHash.hash64(key), value, OffHeap.BYTE_ARRAY_BASE, value.length, frequencyOf,
                frequency);
    }

    /**
     * As {@link #tryAdmit(byte[], byte[], ToIntFunction, int)} for the remaining bytes of {@code value} (a direct
     * buffer, or a heap buffer with an accessible array), copied into the tier and nowhere else: a miss's record,
     * read into a direct buffer, reaches the tier without a copy on the heap. Its position does not move.
     * {@code hash} is the key's {@link KeyHash#hash64}, which the miss has computed already.
     */
    public boolean tryAdmit(byte[] key, long hash, ByteBuffer value, ToIntFunction<byte[]> frequencyOf,
                            int frequency) {
        try {
            return tryAdmit(key, hash, OffHeap.base(value), OffHeap.offset(value), value.remaining(), frequencyOf,
                    frequency);
        } finally {
            Reference.reachabilityFence(value); // a direct buffer's memory is freed with it: not before the copy
        }
    }

    private boolean tryAdmit(byte[] key, long hash, Object valueBase, long valueOffset, int valueLength,
                             ToIntFunction<byte[]> frequencyOf, int frequency) {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            return admitLocked(key, hash, valueBase, valueOffset, valueLength, frequencyOf, frequency,
                    !admitsIntoPreparedOnly);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Admits the entry, evicting as {@link #tryAdmit} does ({@code frequencyOf} null: evict nothing), and only into
     * memory already touched unless {@code mayTouchNew}.
     */
    private boolean admitLocked(byte[] key, long hash, Object valueBase, long valueOffset, int valueLength,
                                ToIntFunction<byte[]> frequencyOf, int frequency, boolean mayTouchNew) {
        if (!admissible(key.length, valueLength)) {
            removeLocked(key, hash);
            return false;
        }
        long cost = cost(key.length, valueLength);
        long old = table.valueLength(key, hash);
        long need = cost - (old < 0 ? 0 : cost(key.length, (int) old));
        while (usedBytes + need > budgetBytes) {
            if (frequencyOf == null || !evictOneLessFrequentThan(frequencyOf, frequency, hash)) {
                // No room. An older value of the key must not outlive this write: drop it.
                if (old >= 0) {
                    removeLocked(key, hash);
                }
                publish();
                return false;
            }
        }
        boolean stored;
        try {
            stored = table.put(key, hash, valueBase, valueOffset, valueLength, mayTouchNew);
        } catch (OutOfMemoryError full) {
            stored = false; // no native memory for another chunk or a larger slot array
        }
        if (!stored) { // the entry stays on disk only
            preparedMemoryUsedUp = !mayTouchNew;
            removeLocked(key, hash);
            publish();
            return false;
        }
        usedBytes += need;
        if (old < 0) {
            ring.addLast(hash);
        }
        publish();
        return true;
    }

    /**
     * From now until {@link #admitAnywhere}, a miss's admission uses only memory already touched: a free block, or
     * what {@link #prepare} touched. A lookup thread that admitted into fresh memory paid its page faults, microseconds
     * per page, and during a 10% -> 100% grow under load (hundreds of megabytes a second admitted) those took the
     * lookups' cores: p50 from 0.04 ms to 700 ms. A grow sets this before it publishes the tier.
     */
    public void admitIntoPreparedMemoryOnly() {
        admitsIntoPreparedOnly = true;
    }

    /** Ends {@link #admitIntoPreparedMemoryOnly}'s rule. */
    public void admitAnywhere() {
        admitsIntoPreparedOnly = false;
    }

    /**
     * Touches {@code bytes} of native memory (whole chunks) for entries to come, on the calling thread: a grow's
     * idle-priority fill. {@code eachStep} runs every 256 KiB zeroed, for pacing and cancellation.
     */
    public void prepare(long bytes, Runnable eachStep) {
        if (table == null) {
            return;
        }
        for (long done = 0; done < bytes && table.prepareChunk(eachStep); done += table.chunkBytes()) {
            lock.lock(); // after any admission that found no memory before this chunk came, so none can undo this
            try {
                preparedMemoryUsedUp = false;
            } finally {
                lock.unlock();
            }
        }
    }

    /** Removes the key if present; returns whether it was. */
    public boolean remove(byte[] key) {
        return remove(key, KeyHash.hash64(key));
    }

    /** {@link #remove(byte[])} for a caller that has the key's {@link KeyHash#hash64} already. */
    public boolean remove(byte[] key, long hash) {
        lock.lock();
        try {
            return removeLocked(key, hash);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The hashes ({@link KeyHash#hash64}) of the keys in the tier, oldest admission first: a snapshot, stale entries
     * dropped. {@link #keyOf} turns one into its key.
     */
    public long[] hashesInRingOrder() {
        if (table == null) {
            return new long[0];
        }
        lock.lock();
        try {
            ring.removeIf(h -> table.valueLengthOf(h) < 0);
            return ring.toArray();
        } finally {
            lock.unlock();
        }
    }

    /** The key in the tier with this hash as a new array, or null (takes the tier's lock). */
    public byte[] keyOf(long hash) {
        if (table == null) {
            return null;
        }
        lock.lock();
        try {
            return table.keyOf(hash);
        } finally {
            lock.unlock();
        }
    }

    /** The value length of the key in the tier with this hash, or -1 (takes the tier's lock). */
    public int valueLengthOf(long hash) {
        if (table == null) {
            return -1;
        }
        lock.lock();
        try {
            return table.valueLengthOf(hash);
        } finally {
            lock.unlock();
        }
    }

    private boolean evictOneLessFrequentThan(ToIntFunction<byte[]> frequencyOf, int frequency, long candidateHash) {
        for (int tries = ring.size(); tries > 0; tries--) {
            long victimHash = ring.pollFirst();
            if (victimHash == candidateHash) {
                continue; // the candidate's own stale ring entry
            }
            byte[] victim = table.keyOf(victimHash); // garbage that dies at once, unlike a copy kept in the ring
            if (victim == null) {
                continue; // removed by a write
            }
            if (!beats(frequency, frequencyOf.applyAsInt(victim))) {
                ring.addLast(victimHash); // second chance; the newcomer is refused
                return false;
            }
            removeLocked(victim, victimHash);
            evictionsView = ++evictions;
            return true;
        }
        return false;
    }

    private boolean removeLocked(byte[] key, long hash) {
        if (table == null) {
            return false;
        }
        int length = table.remove(key, hash);
        if (length < 0) {
            return false;
        }
        usedBytes -= cost(key.length, length);
        publish();
        return true;
    }

    private void publish() {
        usedBytesView = usedBytes;
        entriesView = table.size();
        boolean hasVictim = !ring.isEmpty();
        long victimHash = hasVictim ? ring.peekFirst() : 0;
        if (victimHash != victimHashView) {
            victimHashView = victimHash;
        }
        if (hasVictim != hasVictimView) {
            hasVictimView = hasVictim;
        }
        if (ring.size() > 2 * entriesView + 1024) {
            ring.removeIf(h -> table.valueLengthOf(h) < 0);
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (table != null) {
                table.close();
            }
            ring.clear();
        } finally {
            lock.unlock();
        }
    }
}
