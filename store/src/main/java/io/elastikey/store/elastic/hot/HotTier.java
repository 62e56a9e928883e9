// HotTier -- the in-memory table: values of the chosen entries in an off-heap Chronicle Map, within a byte budget.
package io.elastikey.store.elastic.hot;

import io.elastikey.store.KeyValueStore;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.ToIntFunction;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * One in-memory table with a fixed budget. Its values live off-heap in a Chronicle Map sized for
 * the budget at creation; memory returns to the OS only when the table is closed, so the store
 * changes the budget by building a new table and retiring this one (see {@code Resizer}).
 *
 * <h2>Accounting</h2>
 * Each entry costs {@code key length + value length + }{@link #ENTRY_OVERHEAD} bytes against the
 * budget: the overhead approximates Chronicle's per-entry header and alignment. An entry that
 * would not fit, or is bigger than an eighth of the budget, is simply not admitted.
 *
 * <h2>Victims</h2>
 * Admitted keys join a FIFO ring. When an admission needs room, the head of the ring is the
 * victim: under {@code FREQUENCY} the newcomer must be strictly more frequent than it (TinyLFU),
 * otherwise the victim gets a second chance at the tail and the newcomer is refused. Keys removed
 * by writes stay in the ring until they reach its head and are skipped there.
 *
 * <p>Thread safety: lookups are lock-free (Chronicle's segment locks only). Mutations take this
 * table's monitor for the accounting and the ring; callers also hold the key's stripe lock, which
 * orders them against writes to the same key.
 */
public final class HotTier implements AutoCloseable {

    /** How much more frequent a newcomer must be than its victim; see {@link #beats}. */
    static final int ADMISSION_MARGIN = 1;

    /** Budget bytes charged per entry beyond its key and value. */
    public static final int ENTRY_OVERHEAD = 64;

    /** A tier with no budget: every lookup misses, nothing is admitted. */
    public static HotTier empty() {
        return new HotTier(0, null);
    }

    private final long budgetBytes;
    private final ChronicleMap<byte[], byte[]> map;
    private final ArrayDeque<byte[]> ring = new ArrayDeque<>();
    private long usedBytes;
    private volatile long usedBytesView;
    private volatile long entriesView;
    private volatile byte[] victimView;
    private volatile long victimHashView;

    private HotTier(long budgetBytes, ChronicleMap<byte[], byte[]> map) {
        this.budgetBytes = budgetBytes;
        this.map = map;
    }

    /** A new, empty tier for {@code budgetBytes}, laid out for entries of about the given sizes. */
    public static HotTier create(long budgetBytes, int averageKeySize, int averageValueSize) {
        if (budgetBytes <= 0) {
            return empty();
        }
        long perEntry = (long) averageKeySize + averageValueSize + ENTRY_OVERHEAD;
        long entries = Math.max(1024, budgetBytes / perEntry * 5 / 4);
        ChronicleMap<byte[], byte[]> map = ChronicleMap.of(byte[].class, byte[].class)
                .name("elasticstore-hot")
                .entries(entries)
                .averageKeySize(averageKeySize)
                .averageValueSize(averageValueSize)
                .maxBloatFactor(2)
                .create();
        return new HotTier(budgetBytes, map);
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

    public static long cost(int keyLength, int valueLength) {
        return (long) keyLength + valueLength + ENTRY_OVERHEAD;
    }

    /** Whether an entry of this size could ever be admitted. */
    public boolean admissible(int keyLength, int valueLength) {
        return map != null && cost(keyLength, valueLength) <= Math.max(budgetBytes / 8, 1 << 16)
                && cost(keyLength, valueLength) <= budgetBytes;
    }

    /**
     * Copies the value into {@code dst} if it fits.
     *
     * @return the value's length, or {@link KeyValueStore#NOT_FOUND}
     */
    public int get(byte[] key, ByteBuffer dst) {
        if (map == null) {
            return KeyValueStore.NOT_FOUND;
        }
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(KeyScratch.of(key), 0, key.length)) {
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return KeyValueStore.NOT_FOUND;
            }
            Data<byte[]> v = e.value();
            int n = (int) v.size();
            if (n <= dst.remaining()) {
                copy(v.bytes(), v.offset(), n, dst);
            }
            return n;
        }
    }

    /** The value as a new array, or null. */
    public byte[] get(byte[] key) {
        if (map == null) {
            return null;
        }
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key)) {
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return null;
            }
            Data<byte[]> v = e.value();
            byte[] out = new byte[(int) v.size()];
            v.bytes().read(v.offset(), out, 0, out.length);
            return out;
        }
    }

    public boolean contains(byte[] key) {
        if (map == null) {
            return false;
        }
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(KeyScratch.of(key), 0, key.length)) {
            return c.entry() != null;
        }
    }

    /**
     * A cheap, lock-free guess whether {@link #admit} would take an entry of this size and
     * frequency: there is room, or the oldest entry (the next victim) is less frequent. Lets a
     * miss skip copying its value when the answer is no.
     */
    public boolean mightAdmit(int keyLength, int valueLength, long candidateHash, FrequencySketch sketch) {
        if (!admissible(keyLength, valueLength)) {
            return false;
        }
        if (usedBytesView + cost(keyLength, valueLength) <= budgetBytes) {
            return true;
        }
        return victimView != null
                && beats(sketch.frequency(candidateHash), sketch.frequency(victimHashView));
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
    public synchronized boolean putIfRoom(byte[] key, byte[] value) {
        return admit(key, value, null, 0);
    }

    /**
     * Admits the entry, evicting ring victims less frequent than {@code frequencyOf(key)} as
     * needed ({@code frequencyOf} null: evict nothing). Returns whether the key is now in the tier.
     */
    public synchronized boolean admit(byte[] key, byte[] value, ToIntFunction<byte[]> frequencyOf, int frequency) {
        if (!admissible(key.length, value.length)) {
            removeLocked(key);
            return false;
        }
        long cost = cost(key.length, value.length);
        long old = sizeOf(key);
        long need = cost - (old < 0 ? 0 : cost(key.length, (int) old));
        while (usedBytes + need > budgetBytes) {
            if (frequencyOf == null || !evictOneLessFrequentThan(frequencyOf, frequency, key)) {
                // No room. An older value of the key must not outlive this write: drop it.
                if (old >= 0) {
                    removeLocked(key);
                }
                publish();
                return false;
            }
        }
        try {
            map.put(key, value);
        } catch (IllegalStateException | IllegalArgumentException full) {
            // Chronicle could not place the entry (its segments are laid out for average sizes).
            removeLocked(key);
            return false;
        }
        usedBytes += need;
        if (old < 0) {
            ring.addLast(key.clone());
        }
        publish();
        return true;
    }

    /** Removes the key if present; returns whether it was. */
    public synchronized boolean remove(byte[] key) {
        return removeLocked(key);
    }

    /** Every key in the tier, oldest admission first: a snapshot (stale ring entries are dropped). */
    public synchronized byte[][] keysInRingOrder() {
        ArrayDeque<byte[]> live = new ArrayDeque<>();
        for (byte[] k : ring) {
            if (map.containsKey(k)) {
                live.add(k);
            }
        }
        ring.clear();
        ring.addAll(live);
        return live.toArray(new byte[0][]);
    }

    private boolean evictOneLessFrequentThan(ToIntFunction<byte[]> frequencyOf, int frequency, byte[] candidate) {
        for (int tries = ring.size(); tries > 0; tries--) {
            byte[] victim = ring.pollFirst();
            if (victim == null) {
                return false;
            }
            if (!map.containsKey(victim) || java.util.Arrays.equals(victim, candidate)) {
                continue; // removed by a write, or the candidate's own stale ring entry
            }
            if (!beats(frequency, frequencyOf.applyAsInt(victim))) {
                ring.addLast(victim); // second chance; the newcomer is refused
                return false;
            }
            removeLocked(victim);
            return true;
        }
        return false;
    }

    /** The value size of the key in the map, or -1. */
    private long sizeOf(byte[] key) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(KeyScratch.of(key), 0, key.length)) {
            MapEntry<byte[], byte[]> e = c.entry();
            return e == null ? -1 : e.value().size();
        }
    }

    private boolean removeLocked(byte[] key) {
        if (map == null) {
            return false;
        }
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key)) {
            c.updateLock().lock();
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return false;
            }
            usedBytes -= cost(key.length, (int) e.value().size());
            c.remove(e);
        }
        publish();
        return true;
    }

    private void publish() {
        usedBytesView = usedBytes;
        entriesView = map.longSize();
        byte[] victim = ring.peekFirst();
        if (victim != victimView) {
            victimHashView = victim == null ? 0 : KeyHash.hash64(victim);
            victimView = victim;
        }
        if (ring.size() > 2 * entriesView + 1024) {
            ring.removeIf(k -> !map.containsKey(k));
        }
    }

    private static void copy(RandomDataInput in, long offset, int n, ByteBuffer dst) {
        if (dst.hasArray()) {
            int at = dst.position();
            in.read(offset, dst.array(), dst.arrayOffset() + at, n);
            dst.position(at + n);
        } else if (dst.isDirect()) {
            int at = dst.position();
            in.nativeRead(offset, Jvm.address(dst) + at, n);
            dst.position(at + n);
        } else {
            throw new java.nio.ReadOnlyBufferException();
        }
    }

    @Override
    public synchronized void close() {
        if (map != null) {
            map.close();
        }
        ring.clear();
    }
}
