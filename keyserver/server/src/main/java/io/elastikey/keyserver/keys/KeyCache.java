// KeyCache -- the parsed-key cache (Caffeine), bounded by the memory its keys take, not by their number.
package io.elastikey.keyserver.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;

import io.elastikey.protocol.pki.KeyIds;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Parsed keys by the identifier a client named them with, so a hot key is unsealed and parsed once rather than on
 * every handshake, and costs one hash lookup and no store read at all, even when the client names it by certificate
 * fingerprint. A key named by two identifiers (its key ID and a fingerprint, say) is cached twice; clients name a
 * key one way, so that costs little, and it spares every entry an alias map beside it.
 *
 * <p>Two parts, by what a key is:
 * <ul>
 *   <li>A key whose private key is a {@link CompactKey} (P-256, signed natively) is packed into one array
 *       ({@link PackedKey}) and held off the heap ({@link PackedKeyTier}), unpacked on each hit: a million of them
 *       are native memory the collector never sees. Once the tier is full, a missed key takes an older one's place
 *       only if it is asked for more often (TinyLFU, as the store's memory tier).
 *   <li>Every other key (RSA, P-384, Ed25519, the JDK providers' keys) stays the provider's key object, in a
 *       Caffeine cache: an RSA key carries native Montgomery contexts its first operation builds, which a packed form
 *       would rebuild on every hit.
 * </ul>
 *
 * <p>Bounded by bytes: the packed part by its table's own accounting
 * ({@link io.elastikey.store.elastic.hot.HotTier#cost}), the objects by {@link KeyFootprint}; a million EC keys and
 * ten thousand RSA keys differ eight-fold in size, so a count says nothing about memory. The packed part may take
 * the whole capacity; the objects get what it leaves (re-applied on each object admission and each {@link #stats}),
 * so together they stay within it but for the moments after packed keys grew.
 *
 * <p><b>Once the object part is full, one miss of an EC or Ed25519 key object in {@value #FULL_ADMIT_ONE_IN} is
 * offered to it</b>; the others are answered with the key they loaded, which is then dropped (RSA keys are always
 * offered: see {@link #costlyToLoad}). Why: under a uniform load over more keys than fit, Caffeine would take in every
 * missed key, hold it in its admission window for a while and evict it again: hundreds of thousands of key objects a
 * minute that live just long enough to be copied by young collections and promoted, then die as old-generation
 * garbage (docs/benchmarks.md, "Key server at scale", measured a young pause every 100-200 ms). Under a uniform load
 * no set of keys is better than another, so the hit ratio does not suffer; under a skewed one a hot key misses a few
 * more times before it is in, and TinyLFU keeps it from then on.
 *
 * <p>A capacity of 0 disables the cache: every find reads the store and unseals. Cached keys are private keys in
 * process memory, heap or native (docs/keys.md).
 *
 * <p>Thread-safe. Two concurrent misses of one cold key may both load it; the first one cached stays.
 */
final class KeyCache implements AutoCloseable {
    /** Once the object part has evicted for room, one miss in this many is cached (see the class comment). */
    static final int FULL_ADMIT_ONE_IN = 8;

    private final long capacityBytes;
    private final PrivateKeyParser parser;
    /** Keys that pack; {@code null} when the cache is disabled. */
    private final PackedKeyTier packed;
    /** Keys that do not pack; {@code null} when the cache is disabled. */
    private final Cache<String, LoadedKey> objects;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder objectEvictions = new LongAdder();
    private final LongAdder notAdmitted = new LongAdder();
    private final AtomicLong generation = new AtomicLong();
    /** Set by the object part's first eviction for room, cleared by invalidation: must a miss earn its place. */
    private volatile boolean objectsFull;

    KeyCache(long capacityBytes, PrivateKeyParser parser) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("the key cache size must be 0 (disabled) or more bytes, not "
                    + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        this.parser = parser;
        this.packed = capacityBytes == 0 ? null : new PackedKeyTier(capacityBytes);
        this.objects = capacityBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher(KeyFootprint::of)
                .evictionListener((String identifier, LoadedKey key, RemovalCause cause) -> evicted(cause))
                .build();
    }

    /** The cached key for an identifier (key ID or alias), counted as a hit; {@code null} when not cached. */
    LoadedKey lookup(String identifier) {
        if (packed == null) {
            return null;
        }
        byte[] found = packed.get(PackedKeyTier.keyOf(identifier));
        if (found != null) {
            hits.increment();
            return unpack(found);
        }
        LoadedKey key = objects.getIfPresent(identifier);
        if (key != null) {
            hits.increment();
        }
        return key;
    }

    /**
     * Changes whenever keys are invalidated. A loader takes it before reading the store and hands it to
     * {@link #load}, so that a key read just before it was removed or updated is not cached after the removal.
     */
    long generation() {
        return generation.get();
    }

    /**
     * Loads a key after a {@link #lookup} miss, counted as a miss, through {@code loader}, and caches it unless an
     * invalidation happened since {@code readGeneration} or the cache is full and the key does not earn a place.
     */
    LoadedKey load(String identifier, long readGeneration, Function<String, LoadedKey> loader) {
        misses.increment();
        LoadedKey key = loader.apply(identifier);
        if (packed != null && key != null && !admit(identifier, readGeneration, key, false)) {
            notAdmitted.increment();
        }
        return key;
    }

    /** The cached key for {@code identifier}, not counted as a hit or a miss; {@code null} when not cached. */
    LoadedKey peek(String identifier) {
        if (packed == null) {
            return null;
        }
        byte[] found = packed.get(PackedKeyTier.keyOf(identifier));
        return found != null ? unpack(found) : objects.getIfPresent(identifier);
    }

    /** Whether {@code identifier} is cached; not counted as a hit or a miss. */
    boolean contains(String identifier) {
        return packed != null
                && (packed.contains(PackedKeyTier.keyOf(identifier)) || objects.getIfPresent(identifier) != null);
    }

    /**
     * Caches a key a bulk reader loaded ({@link KeyRepository#preload}), unless an invalidation happened since
     * {@code readGeneration}; not counted as a miss. Returns {@code false}, caching nothing, once the key's part of
     * the cache has no room left: a bulk load, hottest first, then has nothing better to offer than what is in.
     */
    boolean offer(String identifier, long readGeneration, LoadedKey key) {
        return packed != null && admit(identifier, readGeneration, key, true);
    }

    /**
     * Caches {@code key} in its part: packed if it packs, else as an object. A miss ({@code bulk} false) may take a
     * colder entry's place (packed) or one place in {@value #FULL_ADMIT_ONE_IN} (objects) once full; a bulk load
     * takes only free room. A key cached after an invalidation since {@code readGeneration} is forgotten again.
     * Returns whether it was cached.
     */
    private boolean admit(String identifier, long readGeneration, LoadedKey key, boolean bulk) {
        byte[] packedKey = PackedKey.pack(key);
        boolean cached = packedKey != null
                ? packed.admit(PackedKeyTier.keyOf(identifier), packedKey, !bulk)
                : admitObject(identifier, key, bulk);
        if (cached && generation.get() != readGeneration) {
            forget(identifier); // raced with a remove or update: the caller gets what it read, nobody else
        }
        return cached;
    }

    private boolean admitObject(String identifier, LoadedKey key, boolean bulk) {
        fitObjectsBesidePackedKeys();
        boolean earnsAPlace = !bulk
                && (costlyToLoad(key) || ThreadLocalRandom.current().nextInt(FULL_ADMIT_ONE_IN) == 0);
        if (objectsFull && !earnsAPlace) {
            return false;
        }
        objects.asMap().putIfAbsent(identifier, key);
        return true;
    }

    /**
     * RSA keys are always offered a place, full or not: parsing one is cheap, but its first private-key operation
     * builds the native Montgomery contexts and blinding, some 200 µs more than later ones (docs/keys.md), ten times
     * what an EC key costs to load. Dropping them would make every RSA miss pay that again.
     */
    private static boolean costlyToLoad(LoadedKey key) {
        return key.type().keyAlgorithm().equals("RSA");
    }

    /** Counts a miss for an identifier that names no key. */
    void unknown() {
        misses.increment();
    }

    /**
     * Forgets keys that were updated or removed: {@code identifiers} are every identifier a client may have named them
     * by (key IDs and aliases, normal form), so each is one removal, not a walk of the cache. A running server takes
     * these from {@code keys} commands while it serves a million cached keys (a walk of them took 3.4 s per removed
     * key there); a load that read the store before this call is not cached afterwards ({@link #generation}).
     */
    void invalidate(Collection<String> identifiers) {
        generation.incrementAndGet();
        objectsFull = false;
        if (packed != null && !identifiers.isEmpty()) {
            objects.invalidateAll(identifiers);
            identifiers.forEach(identifier -> packed.remove(PackedKeyTier.keyOf(identifier)));
        }
    }

    /** Forgets every cached key: the change notices of a shared store were interrupted. */
    void invalidateAll() {
        generation.incrementAndGet();
        objectsFull = false;
        if (packed != null) {
            objects.invalidateAll();
            packed.clear();
        }
    }

    /**
     * Up to {@code limit} cached identifiers, most valuable first, for a warm start: what was in the cache when the
     * server stopped is what the next one loads first. Key objects lead (an RSA key is the costlier to load), then
     * the packed keys, most often asked for first.
     */
    List<String> hottest(int limit) {
        if (packed == null) {
            return List.of();
        }
        List<String> hottest = new ArrayList<>(objects.policy().eviction()
                .map(e -> e.hottest(limit).keySet()).orElse(Set.of()));
        hottest.addAll(packed.hottest(limit - hottest.size()));
        return hottest;
    }

    /**
     * Writes the packed part to {@code file} ({@link KeyCacheSnapshot}) for the next start, stamped with the store's
     * state; returns the entries written. Key objects (RSA and the like) are not in it: a hot-key reload brings them.
     */
    long saveSnapshot(Path file, Sealer sealer, long writeSequence, long keyCount, int chunk) throws IOException {
        return packed == null ? 0 : KeyCacheSnapshot.write(file, packed, sealer, writeSequence, keyCount, chunk);
    }

    /** Takes what {@link #saveSnapshot} wrote, if the store is as it was then; the file is gone afterwards. */
    KeyCacheSnapshot.Loaded loadSnapshot(Path file, Sealer sealer, long writeSequence, long keyCount)
            throws IOException {
        if (packed == null) {
            Files.deleteIfExists(file);
            return KeyCacheSnapshot.Loaded.refused("the parsed-key cache is disabled");
        }
        return KeyCacheSnapshot.read(file, sealer, writeSequence, keyCount, this::restore);
    }

    /**
     * One entry of a snapshot, taken into free room only. Checked as a key read from the store would be: an
     * identifier in its normal form, and a packed key its parser rebuilds.
     */
    private KeyCacheSnapshot.Taken restore(byte[] identifier, byte[] packedKey) {
        try {
            String id = new String(identifier, StandardCharsets.US_ASCII);
            if (!id.equals(KeyIds.normalize(id))) {
                return KeyCacheSnapshot.Taken.SKIPPED;
            }
            PackedKey.unpack(packedKey, parser);
        } catch (IllegalArgumentException | GeneralSecurityException | java.nio.BufferUnderflowException
                 | ArrayIndexOutOfBoundsException e) {
            return KeyCacheSnapshot.Taken.SKIPPED;
        }
        return packed.admit(identifier, packedKey, false) ? KeyCacheSnapshot.Taken.CACHED
                : KeyCacheSnapshot.Taken.FULL;
    }

    KeyCacheStats stats() {
        if (packed == null) {
            return new KeyCacheStats(hits.sum(), misses.sum(), 0, 0, 0, 0, 0);
        }
        fitObjectsBesidePackedKeys();
        objects.cleanUp();
        long objectBytes = objects.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
        return new KeyCacheStats(hits.sum(), misses.sum(), objectEvictions.sum() + packed.evictions(),
                notAdmitted.sum(), objects.estimatedSize() + packed.entries(), objectBytes + packed.usedBytes(),
                capacityBytes);
    }

    /** Frees the packed part's native memory; lookups afterwards miss. */
    @Override
    public void close() {
        if (packed != null) {
            packed.close();
        }
    }

    /** Gives the object part what the packed keys leave of the capacity (when that moved by more than 1/64). */
    private void fitObjectsBesidePackedKeys() {
        long room = Math.max(0, capacityBytes - packed.usedBytes());
        objects.policy().eviction().ifPresent(e -> {
            if (Math.abs(e.getMaximum() - room) > capacityBytes / 64) {
                e.setMaximum(room);
            }
        });
    }

    private void forget(String identifier) {
        objects.invalidate(identifier);
        packed.remove(PackedKeyTier.keyOf(identifier));
    }

    private LoadedKey unpack(byte[] packedKey) {
        try {
            return PackedKey.unpack(packedKey, parser);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a packed key its own parser cannot rebuild", e);
        }
    }

    private void evicted(RemovalCause cause) {
        objectEvictions.increment();
        if (cause == RemovalCause.SIZE) {
            objectsFull = true;
        }
    }
}
