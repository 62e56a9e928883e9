// PackedKeyTier -- the parsed-key cache's packed keys, off the heap in the store's memory-tier table.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.elastic.hot.FrequencySketch;
import io.elastikey.store.elastic.hot.HotTier;
import io.elastikey.store.elastic.hot.KeyHash;
import io.elastikey.store.elastic.hot.ReaderEpochs;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * {@link PackedKey} arrays by key ID (its 32 bytes), in native memory: the ElasticStore's own
 * memory-tier table ({@link HotTier}: open addressing, lock-free lookups, a byte budget, TinyLFU admission), so that
 * the key server and the store keep hot entries one way. Why off the heap: a million packed keys on the heap were
 * some 450 MB of old generation (arrays, identifier strings, Caffeine's nodes) in a 640 MB heap, which left the young
 * generation 124 MB and made a young collection every second at 20,000 answers/s, each a pause of several ms in
 * every answer waiting behind it; and every cache hit reordered Caffeine's access lists, dirtying old-generation
 * cards that each collection scanned again (docs/benchmarks.md, "Key server at scale").
 *
 * <p>Admission is the store's: while there is room, every key is taken; once full, a newcomer takes the place of the
 * oldest entry only when its estimated access count ({@link FrequencySketch}, counted on every lookup) beats the
 * victim's. A uniform load over more keys than fit then churns nothing, and a skewed one keeps its popular keys.
 *
 * <p>Thread-safe: lookups take no lock (inside a {@link ReaderEpochs} section, so {@link #close} frees nothing a
 * reader is in); changes take the table's monitor. The native memory is freed by {@link #close} or, for a cache that
 * is dropped without it (a test's repository), once the cache is unreachable. Blocks hold private keys in the clear,
 * as the heap held them before: an evicted block is reused, not wiped (docs/keys.md).
 */
final class PackedKeyTier implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create(runnable -> {
        Thread thread = new Thread(runnable, "packed-key-tier-cleaner");
        thread.setDaemon(true);
        return thread;
    });
    /** Entries the table is first laid out for; it doubles as it fills. */
    private static final long FIRST_LAYOUT = 1024;
    /** About what one P-256 entry costs (identifier, packed key, block header, slot share): sizes the sketch. */
    private static final int TYPICAL_ENTRY_COST = 224;

    private final ReaderEpochs epochs = new ReaderEpochs();
    private final FrequencySketch sketch;
    private final Released released;
    private final Cleaner.Cleanable cleanable;

    /** The table, and whether it was closed: shared with the cleaner, which must not reach this object. */
    private static final class Released implements Runnable {
        private volatile HotTier tier;
        private final ReaderEpochs epochs;

        Released(HotTier tier, ReaderEpochs epochs) {
            this.tier = tier;
            this.epochs = epochs;
        }

        @Override
        public void run() {
            HotTier closing = tier;
            tier = HotTier.empty();
            epochs.synchronize(); // no reader is left in the table that is about to be freed
            closing.close();
        }
    }

    PackedKeyTier(long budgetBytes) {
        this.sketch = new FrequencySketch(Math.max(1024, budgetBytes / TYPICAL_ENTRY_COST));
        this.released = new Released(HotTier.create(budgetBytes, FIRST_LAYOUT, epochs), epochs);
        this.cleanable = CLEANER.register(this, released);
    }

    /**
     * The packed key cached under {@code key} (a key ID's bytes, a copy), or {@code null}; counts the access for
     * admission.
     */
    byte[] get(byte[] key) {
        long hash = KeyHash.hash64(key);
        sketch.increment(hash);
        return read(key, hash);
    }

    /** {@link #get} without counting the access. */
    byte[] peek(byte[] key) {
        return read(key, KeyHash.hash64(key));
    }

    /** Counts an access to {@code key} for admission, as a {@link #get} would. */
    void countAccess(byte[] key) {
        sketch.increment(KeyHash.hash64(key));
    }

    /** Whether {@code key} is cached; not counted as an access. */
    boolean contains(byte[] key) {
        return read(key, KeyHash.hash64(key)) != null;
    }

    private byte[] read(byte[] key, long hash) {
        ReaderEpochs.Slot slot = epochs.enter();
        try {
            return released.tier.get(key, hash);
        } finally {
            epochs.exit(slot);
        }
    }

    /**
     * Caches {@code packed} under {@code key}: while there is room; once full, in place of older entries only if it
     * is more often asked for than they are ({@code evictColder}, and only if no other thread is writing to the table
     * at that moment: {@link HotTier#tryAdmit}), else not. Returns whether it is now cached.
     */
    boolean admit(byte[] key, byte[] packed, boolean evictColder) {
        HotTier tier = released.tier;
        try {
            if (!evictColder) {
                return tier.putIfRoom(key, packed);
            }
            return tier.tryAdmit(key, packed, k -> sketch.frequency(KeyHash.hash64(k)),
                    sketch.frequency(KeyHash.hash64(key)));
        } catch (IllegalStateException closedMeanwhile) {
            return false; // the cache closed between reading the table and writing to it: the server is stopping
        }
    }

    void remove(byte[] key) {
        released.tier.remove(key);
    }

    /** Removes every entry (the table keeps its memory for what is cached next). */
    void clear() {
        HotTier tier = released.tier;
        for (long hash : tier.hashesInRingOrder()) {
            byte[] key = tier.keyOf(hash);
            if (key != null) {
                tier.remove(key);
            }
        }
    }

    /** Up to {@code limit} identifiers, the most often asked for first. */
    List<String> hottest(int limit) {
        List<String> identifiers = new ArrayList<>();
        if (limit <= 0) {
            return identifiers;
        }
        forEachHottest((key, packed) -> {
            identifiers.add(KeyIds.hex(key));
            return identifiers.size() < limit;
        }, false);
        return identifiers;
    }

    /**
     * Visits the entries, the most often asked for first, until {@code visitor} returns {@code false}: each key with
     * its packed key when {@code withPackedKeys} (a copy the visitor owns, and must wipe), else with {@code null}.
     */
    void forEachHottest(BiPredicate<byte[], byte[]> visitor, boolean withPackedKeys) {
        HotTier tier = released.tier;
        long[] hashes = tier.hashesInRingOrder();
        long[] ranked = new long[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            // frequency (4 bits) above the position, so that equal counts keep the admission order
            ranked[i] = (long) (15 - sketch.frequency(hashes[i])) << 32 | i;
        }
        Arrays.sort(ranked);
        for (long rank : ranked) {
            long hash = hashes[(int) rank];
            byte[] key = tier.keyOf(hash);
            byte[] packed = key == null || !withPackedKeys ? null : read(key, hash);
            if (key != null && (packed != null || !withPackedKeys) && !visitor.test(key, packed)) {
                return;
            }
        }
    }

    long entries() {
        return released.tier.entries();
    }

    /** The budget the entries take (blocks and slot shares, as {@link HotTier#cost} counts them). */
    long usedBytes() {
        return released.tier.usedBytes();
    }

    long evictions() {
        return released.tier.evictions();
    }

    @Override
    public void close() {
        cleanable.clean();
    }
}
