// KeyCache -- the parsed-key cache (Caffeine), bounded by the memory its keys take, not by their number.
package io.elastikey.keyserver.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;

import java.security.GeneralSecurityException;
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
 * <p>A key whose private key is a {@link CompactKey} (P-256, signed natively) is held packed in one array
 * ({@link PackedKey}) and unpacked on each hit, so a million of them are a million arrays, not a dozen million
 * objects for the collector to mark.
 *
 * <p>Bounded by bytes ({@link KeyFootprint}): a million EC keys and ten thousand RSA keys differ eight-fold in size,
 * so a count says nothing about memory. Caffeine's W-TinyLFU decides what stays: under a skewed load, the popular
 * keys.
 *
 * <p><b>Once full, one miss of an EC or Ed25519 key in {@value #FULL_ADMIT_ONE_IN} is offered to the cache</b>; the
 * others are answered with the key they loaded, which is then dropped (RSA keys are always offered: see
 * {@link #costlyToLoad}). Why: under a uniform load over more keys than fit (a million keys, a
 * cache of some 450,000), Caffeine would take in every missed key, hold it in its admission window for a while and
 * evict it again: hundreds of thousands of key objects a minute that live just long enough to be copied by young
 * collections and promoted, then die as old-generation garbage whose native halves wait for a concurrent cycle
 * (docs/benchmarks.md, "Key server at scale", measured a young pause every 100-200 ms). Under a uniform load no set of
 * keys is better than another, so the hit ratio does not suffer; under a skewed one a hot key misses a few more times
 * before it is in, and TinyLFU keeps it from then on. A key dropped this way is parsed again on its next miss, as it
 * would have been after its eviction.
 *
 * <p>A capacity of 0 disables the cache: every find reads the store and unseals. Cached keys are plain private-key
 * objects in process memory (docs/keys.md).
 *
 * <p>Thread-safe. A miss loads under Caffeine's per-entry computation, so concurrent finds of one cold key parse it
 * once.
 */
final class KeyCache {
    /** Once the cache has evicted for room, one miss in this many is cached (see the class comment). */
    static final int FULL_ADMIT_ONE_IN = 8;

    private final long capacityBytes;
    private final PrivateKeyParser parser;
    /** Values are {@link LoadedKey}s, or {@link PackedKey} arrays for keys that pack. */
    private final Cache<String, Object> keys;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder notAdmitted = new LongAdder();
    private final AtomicLong generation = new AtomicLong();
    /** Set by the first eviction for room, cleared by invalidation: whether a miss must earn its place. */
    private volatile boolean full;

    KeyCache(long capacityBytes, PrivateKeyParser parser) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("the key cache size must be 0 (disabled) or more bytes, not "
                    + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        this.parser = parser;
        this.keys = capacityBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher(KeyFootprint::of)
                .evictionListener((String identifier, Object key, RemovalCause cause) -> evicted(cause))
                .build();
    }

    /** The cached key for an identifier (key ID or alias), counted as a hit; {@code null} when not cached. */
    LoadedKey lookup(String identifier) {
        if (keys == null) {
            return null;
        }
        Object cached = keys.getIfPresent(identifier);
        if (cached == null) {
            return null;
        }
        hits.increment();
        return unpacked(cached);
    }

    /**
     * Changes whenever keys are invalidated. A loader takes it before reading the store and hands it to
     * {@link #load}, so that a key read just before it was removed or updated is not cached after the removal.
     */
    long generation() {
        return generation.get();
    }

    /**
     * Loads a key after a {@link #lookup} miss, counted as a miss: from the cache if another thread loaded it
     * meanwhile, else through {@code loader}, whose result is cached unless an invalidation happened since
     * {@code readGeneration}.
     */
    LoadedKey load(String identifier, long readGeneration, Function<String, LoadedKey> loader) {
        misses.increment();
        if (keys == null) {
            return loader.apply(identifier);
        }
        LoadedKey key;
        if (full) {
            key = loader.apply(identifier);
            if (key == null || !costlyToLoad(key) && ThreadLocalRandom.current().nextInt(FULL_ADMIT_ONE_IN) != 0) {
                notAdmitted.increment();
                return key;
            }
            keys.asMap().putIfAbsent(identifier, packed(key));
        } else {
            Object cached = keys.get(identifier, id -> {
                LoadedKey loaded = loader.apply(id);
                return loaded == null ? null : packed(loaded);
            });
            key = cached == null ? null : unpacked(cached); // a packed key is unpacked even here: 0.3 µs on a miss
        }
        if (generation.get() != readGeneration) {
            keys.invalidate(identifier); // raced with a remove or update: the caller gets what it read, nobody else
        }
        return key;
    }

    /** Whether {@code identifier} is cached; not counted as a hit or a miss. */
    boolean contains(String identifier) {
        return keys != null && keys.getIfPresent(identifier) != null;
    }

    /**
     * Caches a key a bulk reader loaded ({@link KeyRepository#preload}), unless an invalidation happened since
     * {@code readGeneration}; not counted as a miss. Returns {@code false}, caching nothing, once the cache has
     * evicted for room: a bulk load then has nothing better to offer than what is in.
     */
    boolean offer(String identifier, long readGeneration, LoadedKey key) {
        if (keys == null || full) {
            return false;
        }
        keys.asMap().putIfAbsent(identifier, packed(key));
        if (generation.get() != readGeneration) {
            keys.invalidate(identifier);
        }
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
     * Forgets keys that were updated or removed, under every identifier they were cached by. Walks the whole cache
     * once: updates and removals happen in the {@code keys} commands and tests, never per request.
     */
    void invalidate(Collection<String> keyIds) {
        generation.incrementAndGet();
        full = false;
        if (keys != null && !keyIds.isEmpty()) {
            Set<String> gone = Set.copyOf(keyIds);
            keys.asMap().values().removeIf(key -> gone.contains(key instanceof byte[] packed
                    ? PackedKey.keyIdOf(packed) : ((LoadedKey) key).keyId()));
        }
    }

    /**
     * Up to {@code limit} cached identifiers, most valuable first (Caffeine's hottest), for a warm start: what was
     * in the cache when the server stopped is what the next one loads first.
     */
    List<String> hottest(int limit) {
        if (keys == null) {
            return List.of();
        }
        return keys.policy().eviction().map(e -> List.copyOf(e.hottest(limit).keySet())).orElse(List.of());
    }

    KeyCacheStats stats() {
        if (keys == null) {
            return new KeyCacheStats(hits.sum(), misses.sum(), 0, 0, 0, 0, 0);
        }
        keys.cleanUp();
        long weighted = keys.policy().eviction().map(e -> e.weightedSize().orElse(0L)).orElse(0L);
        return new KeyCacheStats(hits.sum(), misses.sum(), evictions.sum(), notAdmitted.sum(), keys.estimatedSize(),
                weighted, capacityBytes);
    }

    /** What the cache holds for {@code key}: packed when it packs ({@link PackedKey}), else the key itself. */
    private static Object packed(LoadedKey key) {
        byte[] packed = PackedKey.pack(key);
        return packed != null ? packed : key;
    }

    private LoadedKey unpacked(Object cached) {
        if (!(cached instanceof byte[] packed)) {
            return (LoadedKey) cached;
        }
        try {
            return PackedKey.unpack(packed, parser);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a packed key its own parser cannot rebuild", e);
        }
    }

    private void evicted(RemovalCause cause) {
        evictions.increment();
        if (cause == RemovalCause.SIZE) {
            full = true;
        }
    }
}
