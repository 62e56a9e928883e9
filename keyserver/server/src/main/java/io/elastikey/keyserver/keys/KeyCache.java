// KeyCache -- the parsed-key cache (Caffeine), bounded by the memory its keys take, not by their number.
package io.elastikey.keyserver.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.elastic.hot.FixedEntryTable;
import io.elastikey.store.elastic.hot.HotTier;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Parsed keys by key ID, so a hot key is unsealed and parsed once rather than on every handshake, and costs a hash
 * lookup or two and no store read at all, whatever name the client uses.
 *
 * <p><b>One entry per key, and its other names beside it.</b> Clients name a key three ways: our edge and {@code
 * keys list} by key ID, SKI clients by certificate SHA-1, Keyless clients by Subject Key Identifier. The 20-byte
 * names are kept in a table of their own ({@link FixedEntryTable}, native memory), each pointing at the key ID,
 * 75 to 112 bytes a name; a second copy of the key under each name, as this cache once held them, took some 300
 * bytes a name, and a start that cached keys under one name missed every request by another. A name whose key has
 * left the cache is dropped when that table next grows. Other 32-byte names (Keyless's modulus digest of an RSA
 * key) are cached as a second entry.
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
 * so together they stay within it but for the moments after packed keys grew. The objects live on the heap, so they
 * also get no more than {@value #OBJECT_HEAP_SHARE} of the JVM's maximum heap: a {@code keys.cache} chosen for a
 * million P-256 keys off the heap would otherwise let some 80,000 hot RSA keys fill a heap sized for the packed
 * case, and the server would spend its time collecting.
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

    /** The part of the maximum heap the key objects may take. */
    static final double OBJECT_HEAP_SHARE = 0.5;

    private final long capacityBytes;
    /** The most the key objects may take: the capacity, or {@link #OBJECT_HEAP_SHARE} of the heap if less. */
    private final long objectLimit;
    private final PrivateKeyParser parser;
    /** Keys that pack; {@code null} when the cache is disabled. */
    private final PackedKeyTier packed;
    /** Keys that do not pack; {@code null} when the cache is disabled. */
    private final Cache<String, LoadedKey> objects;
    /** Certificate SHA-1s and Subject Key Identifiers of cached keys, to their key IDs; {@code null} when disabled. */
    private final FixedEntryTable names;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder objectEvictions = new LongAdder();
    private final LongAdder notAdmitted = new LongAdder();
    private final AtomicLong generation = new AtomicLong();
    /** Set by the object part's first eviction for room, cleared by invalidation: must a miss earn its place. */
    private volatile boolean objectsFull;

    KeyCache(long capacityBytes, PrivateKeyParser parser) {
        this(capacityBytes, parser, (long) (Runtime.getRuntime().maxMemory() * OBJECT_HEAP_SHARE));
    }

    /** As {@link #KeyCache(long, PrivateKeyParser)}, with the key objects held to {@code objectHeapLimit} bytes. */
    KeyCache(long capacityBytes, PrivateKeyParser parser, long objectHeapLimit) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("the key cache size must be 0 (disabled) or more bytes, not "
                    + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        this.objectLimit = Math.min(capacityBytes, objectHeapLimit);
        this.parser = parser;
        this.packed = capacityBytes == 0 ? null : new PackedKeyTier(capacityBytes);
        this.objects = capacityBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(objectLimit)
                .weigher(KeyFootprint::of)
                .evictionListener((String identifier, LoadedKey key, RemovalCause cause) -> evicted(cause))
                .build();
        this.names = capacityBytes == 0 ? null : new FixedEntryTable(KeyIds.SHA1_LENGTH, KeyIds.SHA256_LENGTH,
                (name, keyId) -> holds(keyId));
    }

    /**
     * The cached key for an identifier (key ID or another name, normal form), counted as a hit; {@code null} when not
     * cached.
     */
    LoadedKey lookup(String identifier) {
        LoadedKey key = cached(identifier, true);
        if (key != null) {
            hits.increment();
        }
        return key;
    }

    /** The key cached under {@code identifier} or the key ID it names; counted for admission when {@code count}. */
    private LoadedKey cached(String identifier, boolean count) {
        if (packed == null) {
            return null;
        }
        byte[] keyId = keyIdNamed(identifier);
        if (keyId == null) {
            return null;
        }
        byte[] found = count ? packed.get(keyId) : packed.peek(keyId);
        if (found != null) {
            return unpack(found);
        }
        return objects.getIfPresent(identifier.length() == 2 * KeyIds.SHA1_LENGTH ? KeyIds.hex(keyId) : identifier);
    }

    /** The table key an identifier is cached under: itself, or for a 20-byte name the key ID it points at. */
    private byte[] keyIdNamed(String identifier) {
        byte[] bytes = KeyIds.parse(identifier);
        return bytes.length == KeyIds.SHA1_LENGTH ? names.get(bytes) : bytes;
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
        if (packed != null && key != null && !cache(identifier, readGeneration, key, false)) {
            notAdmitted.increment();
        }
        return key;
    }

    /** The cached key for {@code identifier}, not counted as a hit or a miss; {@code null} when not cached. */
    LoadedKey peek(String identifier) {
        return cached(identifier, false);
    }

    /** Whether {@code identifier} is cached; not counted as a hit or a miss. */
    boolean contains(String identifier) {
        if (packed == null) {
            return false;
        }
        byte[] keyId = keyIdNamed(identifier);
        return keyId != null && (packed.contains(keyId) || objects.getIfPresent(KeyIds.hex(keyId)) != null
                || objects.getIfPresent(identifier) != null);
    }

    /**
     * Caches a key a bulk reader loaded ({@link KeyRepository#preload}, the walk) under its key ID and the other
     * {@code names} given (normal form), unless an invalidation happened since {@code readGeneration}; not counted
     * as a miss. Returns {@code false}, caching nothing more, once the cache has no room left: a bulk load, hottest
     * first, then has nothing better to offer than what is in.
     */
    boolean offer(Collection<String> names, long readGeneration, LoadedKey key) {
        if (packed == null || !cache(key.keyId(), readGeneration, key, true)) {
            return false;
        }
        for (String name : names) {
            addName(name, key.keyId(), readGeneration, key, true);
        }
        return true;
    }

    /**
     * When the key of {@code keyId} is cached: adds {@code names} for it (while there is room) and returns {@code
     * true}, so a bulk load need not unseal it again; else {@code false}.
     */
    boolean offerNames(Collection<String> names, String keyId, long readGeneration) {
        if (packed == null || !containsKeyId(keyId)) {
            return false;
        }
        for (String name : names) {
            if (full()) {
                break;
            }
            addName(name, keyId, readGeneration, null, true);
        }
        return true;
    }

    /** Whether the packed keys and the names leave no room for a bulk load. */
    private boolean full() {
        return packed.usedBytes() + names.reservedBytes() >= capacityBytes;
    }

    /**
     * Whether a bulk load has room for a key beside the packed keys and the names: {@code packedKey} its packed form,
     * or {@code null} for a key object.
     */
    private boolean roomFor(byte[] packedKey) {
        return packedKey == null ? !full()
                : packed.usedBytes() + names.reservedBytes() + HotTier.cost(KeyIds.SHA256_LENGTH, packedKey.length)
                        <= capacityBytes;
    }

    /**
     * Caches {@code key} under its key ID, if it is not there, and then under {@code identifier} when that is another
     * name: a 20-byte name as a pointer to the key ID, a 32-byte one as a second entry. See {@link #admit}.
     */
    private boolean cache(String identifier, long readGeneration, LoadedKey key, boolean bulk) {
        String keyId = key.keyId();
        if (!bulk && !identifier.equals(keyId)) {
            packed.countAccess(KeyIds.parse(keyId)); // asked for by another name: the lookup counted that one
        }
        if (!containsKeyId(keyId) && !admit(keyId, readGeneration, key, bulk)) {
            return false;
        }
        return identifier.equals(keyId) || addName(identifier, keyId, readGeneration, key, bulk);
    }

    /**
     * Caches {@code name} for the cached key of {@code keyId}: a 20-byte name as a pointer to the key ID, another
     * as a second entry of {@code key} (looked up when {@code null}).
     */
    private boolean addName(String name, String keyId, long readGeneration, LoadedKey key, boolean bulk) {
        if (name.length() != 2 * KeyIds.SHA1_LENGTH) {
            LoadedKey entry = key != null ? key : peek(keyId);
            return entry != null && admit(name, readGeneration, entry, bulk);
        }
        byte[] nameBytes = KeyIds.parse(name);
        names.put(nameBytes, KeyIds.parse(keyId));
        if (generation.get() != readGeneration) {
            names.remove(nameBytes); // raced with a remove or update, as in admit
        }
        return true;
    }

    private boolean containsKeyId(String keyId) {
        return packed.contains(KeyIds.parse(keyId)) || objects.getIfPresent(keyId) != null;
    }

    /** Whether the key of this key ID is still cached: a name of it is worth keeping. */
    private boolean holds(byte[] keyId) {
        return packed.contains(keyId) || objects.getIfPresent(KeyIds.hex(keyId)) != null;
    }

    /**
     * Caches {@code key} under {@code identifier} in its part: packed if it packs, else as an object. A miss ({@code
     * bulk} false) may take a colder entry's place (packed) or one place in {@value #FULL_ADMIT_ONE_IN} (objects) once
     * full; a bulk load takes only free room, the names' table counted ({@link #roomFor}). A key cached after an invalidation since {@code readGeneration} is
     * forgotten again. Returns whether it was cached.
     */
    private boolean admit(String identifier, long readGeneration, LoadedKey key, boolean bulk) {
        byte[] packedKey = PackedKey.pack(key);
        if (bulk && !roomFor(packedKey)) {
            if (packedKey != null) {
                Arrays.fill(packedKey, (byte) 0);
            }
            return false;
        }
        boolean cached = packedKey != null
                ? packed.admit(KeyIds.parse(identifier), packedKey, !bulk)
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
            identifiers.forEach(this::removeFromTables);
        }
    }

    /** Forgets every cached key: the change notices of a shared store were interrupted. */
    void invalidateAll() {
        generation.incrementAndGet();
        objectsFull = false;
        if (packed != null) {
            objects.invalidateAll();
            packed.clear();
            names.clear();
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
        return packed == null ? 0
                : KeyCacheSnapshot.write(file, packed, names, sealer, writeSequence, keyCount, chunk);
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
     * identifier in its normal form, and a packed key its parser rebuilds; a name only for a key already taken. A
     * key under another identifier than its key ID (a snapshot of a build that cached keys by the name asked for)
     * is taken under its key ID, and that identifier as its name.
     */
    private KeyCacheSnapshot.Taken restore(byte[] identifier, byte[] value) {
        String id;
        try {
            id = new String(identifier, StandardCharsets.US_ASCII);
            if (!id.equals(KeyIds.normalize(id))) {
                return KeyCacheSnapshot.Taken.SKIPPED;
            }
            if (value.length == KeyIds.SHA256_LENGTH) {
                return restoreName(KeyIds.parse(id), value);
            }
            PackedKey.unpack(value, parser);
        } catch (IllegalArgumentException | GeneralSecurityException | java.nio.BufferUnderflowException
                 | ArrayIndexOutOfBoundsException e) {
            return KeyCacheSnapshot.Taken.SKIPPED;
        }
        byte[] keyId = KeyIds.parse(PackedKey.keyIdOf(value));
        if (full() || !packed.contains(keyId) && !packed.admit(keyId, value, false)) {
            return KeyCacheSnapshot.Taken.FULL;
        }
        byte[] name = KeyIds.parse(id);
        if (Arrays.equals(name, keyId)) {
            return KeyCacheSnapshot.Taken.CACHED;
        }
        if (name.length == KeyIds.SHA1_LENGTH) {
            names.put(name, keyId);
        } else {
            packed.admit(name, value, false);
        }
        return KeyCacheSnapshot.Taken.CACHED;
    }

    private KeyCacheSnapshot.Taken restoreName(byte[] name, byte[] keyId) {
        if (name.length != KeyIds.SHA1_LENGTH || !packed.contains(keyId)) {
            return KeyCacheSnapshot.Taken.SKIPPED;
        }
        names.put(name, keyId);
        return KeyCacheSnapshot.Taken.NAMED;
    }

    KeyCacheStats stats() {
        if (packed == null) {
            return new KeyCacheStats(hits.sum(), misses.sum(), 0, 0, 0, 0, 0, 0);
        }
        fitObjectsBesidePackedKeys();
        objects.cleanUp();
        long objectBytes = objects.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
        return new KeyCacheStats(hits.sum(), misses.sum(), objectEvictions.sum() + packed.evictions(),
                notAdmitted.sum(), objects.estimatedSize() + packed.entries(), names.entries(),
                objectBytes + packed.usedBytes() + names.reservedBytes(), capacityBytes);
    }

    /** Frees the packed part's native memory; lookups afterwards miss. */
    @Override
    public void close() {
        if (packed != null) {
            packed.close();
            names.close();
        }
    }

    /**
     * Gives the object part what the packed keys leave of the capacity, within its heap limit (when that moved by more
     * than 1/64).
     */
    private void fitObjectsBesidePackedKeys() {
        long room = Math.min(objectLimit, Math.max(0, capacityBytes - packed.usedBytes() - names.reservedBytes()));
        objects.policy().eviction().ifPresent(e -> {
            if (Math.abs(e.getMaximum() - room) > capacityBytes / 64) {
                e.setMaximum(room);
            }
        });
    }

    private void forget(String identifier) {
        objects.invalidate(identifier);
        removeFromTables(identifier);
    }

    private void removeFromTables(String identifier) {
        byte[] bytes = KeyIds.parse(identifier);
        if (bytes.length == KeyIds.SHA1_LENGTH) {
            names.remove(bytes);
        } else {
            packed.remove(bytes);
        }
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
