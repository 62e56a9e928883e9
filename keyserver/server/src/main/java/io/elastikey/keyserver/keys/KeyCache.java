// KeyCache -- the bounded cache of parsed keys (Caffeine), with the alias -> key ID map beside it.
package io.elastikey.keyserver.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Parsed keys by key ID, so a hot key is unsealed and parsed once rather than on every handshake; and, beside
 * them, which key ID an alias names, so a client that sends certificate fingerprints costs no store lookup either.
 * Both are bounded by the same {@code maximumSize} (Caffeine's W-TinyLFU eviction). An alias never changes the key
 * it names (it is a digest of that key or of one of its certificates), so an alias entry can only be stale in
 * naming a removed key, whose lookup then misses.
 *
 * <p>A size of 0 disables both: every find reads the store and unseals. The trade-off is documented in
 * docs/keys.md: cached keys are plain private-key objects in the Java heap.
 *
 * <p>Thread-safe. A miss loads under Caffeine's per-entry computation, so concurrent finds of one cold key parse it
 * once.
 */
final class KeyCache {
    private final long maximumSize;
    private final Cache<String, LoadedKey> keys;
    private final Cache<String, String> aliases;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final AtomicLong generation = new AtomicLong();

    KeyCache(long maximumSize) {
        if (maximumSize < 0) {
            throw new IllegalArgumentException("the key cache size must be 0 (disabled) or more, not " + maximumSize);
        }
        this.maximumSize = maximumSize;
        this.keys = maximumSize == 0 ? null : Caffeine.newBuilder().maximumSize(maximumSize).build();
        this.aliases = maximumSize == 0 ? null : Caffeine.newBuilder().maximumSize(maximumSize).build();
    }

    /** The cached key for an identifier (key ID or alias), counted as a hit; {@code null} when not cached. */
    LoadedKey lookup(String identifier) {
        if (keys == null) {
            return null;
        }
        LoadedKey key = keys.getIfPresent(identifier);
        if (key == null) {
            String keyId = aliases.getIfPresent(identifier);
            key = keyId == null ? null : keys.getIfPresent(keyId);
        }
        if (key != null) {
            hits.increment();
        }
        return key;
    }

    /**
     * Changes whenever a key is invalidated. A loader takes it before reading the store and hands it to
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
    LoadedKey load(String identifier, String keyId, long readGeneration, Function<String, LoadedKey> loader) {
        misses.increment();
        if (keys == null) {
            return loader.apply(keyId);
        }
        LoadedKey key = keys.get(keyId, loader);
        if (generation.get() != readGeneration) {
            keys.invalidate(keyId); // raced with a remove or update: the caller gets what it read, nobody else
        } else if (!identifier.equals(keyId)) {
            aliases.put(identifier, keyId);
        }
        return key;
    }

    /** Counts a miss for an identifier that names no key. */
    void unknown() {
        misses.increment();
    }

    /** Forgets a key (it was updated or removed) and the aliases that named it. */
    void invalidate(String keyId, Collection<String> aliasesOfKey) {
        generation.incrementAndGet();
        if (keys != null) {
            keys.invalidate(keyId);
            aliases.invalidateAll(aliasesOfKey);
        }
    }

    KeyCacheStats stats() {
        return new KeyCacheStats(hits.sum(), misses.sum(), keys == null ? 0 : keys.estimatedSize(), maximumSize);
    }
}
