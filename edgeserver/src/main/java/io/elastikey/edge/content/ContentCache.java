// ContentCache -- the edge's shared HTTP cache over a KeyValueStore: inline reads, one background writer.
package io.elastikey.edge.content;

import io.elastikey.protocol.net.RateLimitedLog;
import io.elastikey.edge.content.CachedResponse.Field;
import io.elastikey.edge.content.StorePolicy.Freshness;
import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.KeyValueStore;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Stores the responses {@link StorePolicy} allows, as {@link CachedResponse} values under {@link CacheKeys}, and
 * answers lookups with fresh ones.
 *
 * <p>Lookups run inline on the calling event loop. The default store keeps its hot entries in memory, so a hit is
 * a hash lookup and a copy; a cold entry costs one positional read, usually from the page cache. Handing every
 * lookup to another thread would add two thread switches to each hit to save that occasional read. Writes go to a
 * {@link CacheWriter}, whose single thread also copies the body into the stored value, from a retained view of the
 * response's buffer, so the event loop copies nothing.
 *
 * <p>Entries expire: one past {@link CachedResponse#retainUntil()} (its lifetime, plus its {@code stale-*}
 * windows, plus an hour when it has a validator and so can be revalidated) is a miss, and is deleted when a lookup
 * finds it or by the writer's periodic sweep ({@value #SWEEP_INTERVAL_MILLIS} ms). A response with {@code Vary} is
 * kept per variant ({@link VaryIndex}). A value that does not decode is a miss and deleted too:
 * a damaged cache entry must never reach a client or fail a request.
 */
public final class ContentCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ContentCache.class);
    static final int WRITE_QUEUE = 256;
    static final long SWEEP_INTERVAL_MILLIS = 10 * 60_000;
    private static final long MIN_QUEUED_BYTES = 32L << 20;

    private final KeyValueStore store;
    private final boolean ownsStore;
    private final int maxKeyBytes;
    private final int maxEntryBytes;
    private final Clock clock;
    private final RateLimitedLog warnings = new RateLimitedLog(LOG, Level.WARN, 1, Duration.ofSeconds(10));
    private final CacheWriter writer;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder uncacheable = new LongAdder();
    private final LongAdder corrupt = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder revalidated = new LongAdder();
    private final LongAdder coalesced = new LongAdder();
    private volatile boolean closed;

    /**
     * A cache over {@code store}, which the caller keeps and closes after this cache.
     *
     * @param maxKeyBytes the store's key limit (at least 33); longer keys are hashed
     * @param maxEntryBytes the largest encoded entry stored, at most {@code store.maxValueSize()}
     */
    public ContentCache(KeyValueStore store, int maxKeyBytes, int maxEntryBytes) {
        this(store, false, maxKeyBytes, maxEntryBytes, Clock.systemUTC(), WRITE_QUEUE, SWEEP_INTERVAL_MILLIS);
    }

    ContentCache(KeyValueStore store, boolean ownsStore, int maxKeyBytes, int maxEntryBytes, Clock clock,
                 int writeQueue, long sweepIntervalMillis) {
        if (maxKeyBytes < CacheKeys.HASHED_LENGTH) {
            throw new IllegalArgumentException("maxKeyBytes must be >= " + CacheKeys.HASHED_LENGTH + ", was "
                    + maxKeyBytes);
        }
        if (maxEntryBytes < 1 || maxEntryBytes > store.maxValueSize()) {
            throw new IllegalArgumentException("maxEntryBytes must be in [1, " + store.maxValueSize()
                    + "] (the store's maxValueSize), was " + maxEntryBytes);
        }
        this.store = store;
        this.ownsStore = ownsStore;
        this.maxKeyBytes = maxKeyBytes;
        this.maxEntryBytes = maxEntryBytes;
        this.clock = clock;
        this.writer = new CacheWriter(store, clock, writeQueue, Math.max(MIN_QUEUED_BYTES, 4L * maxEntryBytes),
                sweepIntervalMillis, warnings);
    }

    /**
     * Opens (creating if needed) an {@link ElasticStore} in {@code dir} with {@code memoryBudgetBytes} for its
     * memory tier and no fsync (a cache loses nothing that matters in a crash), and a cache over it that closes it.
     *
     * @throws io.elastikey.store.StoreLockedException when another process has {@code dir} open
     */
    public static ContentCache openElastic(Path dir, long memoryBudgetBytes, int maxEntryBytes) {
        ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir)
                .memoryBudgetBytes(memoryBudgetBytes)
                .fsyncPolicy(FsyncPolicy.NEVER)
                .maxValueSize(maxEntryBytes)
                .averageKeySize(64)
                .averageValueSize(16 << 10)
                .build());
        try {
            return new ContentCache(store, true, store.config().maxKeySize(), maxEntryBytes, Clock.systemUTC(),
                    WRITE_QUEUE, SWEEP_INTERVAL_MILLIS);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    public int maxEntryBytes() {
        return maxEntryBytes;
    }

    /** The key {@link #lookup} and {@link #store} take for {@code request}. */
    byte[] keyOf(HttpRequest request) {
        return CacheKeys.of(request, maxKeyBytes);
    }

    /** The cache's clock, in epoch millis; a hit's {@code Age} is computed against it. */
    long now() {
        return clock.millis();
    }

    /**
     * The stored response for the request (the variant its {@code Vary} values select), fresh or stale but still
     * retained ({@link CachedResponse#retainUntil()}), or null. A fresh one counts as a hit and null as a miss; a
     * stale one is counted by the caller once it knows what became of it ({@link #countStale}). Never throws.
     * Freshness is judged at {@code now}, the caller's one reading of {@link #now()} for the request: a second
     * reading could fall past the entry's expiry, and the caller would then answer a counted hit as a miss.
     */
    CachedResponse lookup(byte[] key, HttpHeaders request, long now) {
        byte[] value = read(key);
        if (value != null && VaryIndex.isIndex(value)) {
            VaryIndex index = VaryIndex.decode(value);
            if (index == null || index.retainUntil() <= now) {
                return dead(key, index == null);
            }
            key = VaryIndex.variantKey(key, index.valuesOf(request), maxKeyBytes);
            value = read(key);
        }
        if (value == null) {
            misses.increment();
            return null;
        }
        CachedResponse r = CachedResponse.decode(value);
        if (r == null || !r.isFresh(now) && r.retainUntil() <= now) {
            return dead(key, r == null);
        }
        if (!StorePolicy.varyMatches(r.vary, request)) {
            misses.increment();
            return null;
        }
        if (r.isFresh(now)) {
            hits.increment();
        }
        return r;
    }

    /** The value under {@code key}; null when absent or unreadable, empty when damaged (it then decodes to null). */
    private byte[] read(byte[] key) {
        try {
            return store.get(key);
        } catch (CorruptRecordException e) {
            return new byte[0];
        } catch (RuntimeException e) {
            warnings.log("content cache lookup failed: {}", e.toString());
            return null;
        }
    }

    private CachedResponse dead(byte[] key, boolean damaged) {
        (damaged ? corrupt : expired).increment();
        misses.increment();
        writer.deleteIfStale(key);
        return null;
    }

    /** What became of a request that found only a stale entry: {@code STALE}, {@code REVALIDATED}, else a miss. */
    void countStale(String verdict) {
        switch (verdict) {
            case ContentHandler.STALE -> stale.increment();
            case ContentHandler.REVALIDATED -> revalidated.increment();
            default -> misses.increment();
        }
    }

    /** A request that waited for another's origin request and was answered with its result. */
    void countCoalesced() {
        coalesced.increment();
    }

    /**
     * The request headers a response varies on, with {@code request}'s values, when a shared cache may store it
     * (so may give it to another client); null when it may not. The same rules as {@link #store}, size aside.
     */
    static List<Field> shareable(HttpMethod method, HttpHeaders request, HttpResponse response, long now) {
        Freshness fresh = StorePolicy.freshness(method, request, response, now);
        return fresh == null ? null : StorePolicy.varyFields(response.headers(), request);
    }

    /**
     * Queues {@code response} for storage if the rules and the size limit allow; returns whether it was queued.
     * Reads what it needs from the response before returning; the caller keeps ownership and may send it on.
     */
    boolean store(byte[] key, HttpMethod method, HttpHeaders request, FullHttpResponse response) {
        return store(key, method, request, response, null);
    }

    /** As above; {@code written} (may be null) runs on the writer thread once a queued put is done. */
    boolean store(byte[] key, HttpMethod method, HttpHeaders request, FullHttpResponse response, Runnable written) {
        Freshness fresh = StorePolicy.freshness(method, request, response, clock.millis());
        List<Field> vary = fresh == null ? null : StorePolicy.varyFields(response.headers(), request);
        if (vary == null) {
            uncacheable.increment();
            return false;
        }
        return put(key, response.status().code(), StorePolicy.replayed(response.headers()), vary, fresh,
                response.content().retainedDuplicate(), written);
    }

    /**
     * Applies a 304 from the origin to {@code stored} (RFC 9111 4.3.4): the replayed headers the 304 carries
     * replace the stored ones, and the freshness is computed again from the result. Queues the refreshed entry
     * for storage (or its deletion, when the new headers forbid storing) and returns it for serving now.
     */
    CachedResponse refresh(byte[] key, CachedResponse stored, HttpHeaders notModified, HttpHeaders request) {
        return refresh(key, stored, notModified, request, null);
    }

    /** As above; {@code written} (may be null) runs on the writer thread once the refreshed entry is stored. */
    CachedResponse refresh(byte[] key, CachedResponse stored, HttpHeaders notModified, HttpHeaders request,
                           Runnable written) {
        List<Field> merged = new ArrayList<>(stored.headers.size() + 2);
        for (String name : CachedResponse.REPLAYED) {
            List<String> updated = notModified.getAll(name);
            if (updated.isEmpty()) {
                stored.headers.stream().filter(f -> f.name().equals(name)).forEach(merged::add);
            } else {
                updated.forEach(v -> merged.add(new Field(name, v)));
            }
        }
        HttpHeaders h = new DefaultHttpHeaders();
        merged.forEach(f -> h.add(f.name(), f.value()));
        if (notModified.contains(HttpHeaderNames.AGE)) {
            h.set(HttpHeaderNames.AGE, notModified.get(HttpHeaderNames.AGE));
        }
        long now = clock.millis();
        Freshness fresh = StorePolicy.freshness(HttpMethod.GET, request,
                new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(stored.status), h), now);
        if (fresh == null) {
            uncacheable.increment();
            invalidate(key);
            if (written != null) {
                written.run();
            }
            return stored.refreshed(merged, now, now);
        }
        CachedResponse refreshed = stored.refreshed(merged, fresh.storedAt(), fresh.expiresAt());
        if (!put(key, stored.status, merged, stored.vary, fresh, stored.body(), written) && written != null) {
            written.run();
        }
        return refreshed;
    }

    /**
     * Queues the put of one entry, under the URL's key or, for a response with {@code Vary}, under its variant's
     * key with a {@link VaryIndex} under the URL's. Takes ownership of {@code body}.
     */
    private boolean put(byte[] key, int status, List<Field> headers, List<Field> vary, Freshness fresh, ByteBuf body,
                        Runnable written) {
        int size = CachedResponse.encodedSize(headers, vary, body.readableBytes());
        if (size < 0 || size > maxEntryBytes) {
            body.release();
            uncacheable.increment();
            return false;
        }
        byte[] entryKey = key;
        if (!vary.isEmpty()) {
            byte[] index = new VaryIndex(VaryIndex.namesOf(vary),
                    CachedResponse.retainUntil(headers, fresh.expiresAt())).encode();
            writer.put(key, Unpooled.EMPTY_BUFFER, index.length, unused -> index);
            entryKey = VaryIndex.variantKey(key, vary, maxKeyBytes);
        }
        return writer.put(entryKey, body, size, b -> CachedResponse.encode(status, headers, vary, fresh.storedAt(),
                fresh.expiresAt(), b, size), written);
    }

    /**
     * Deletes what is stored under {@code key}, in the background: an unsafe method (POST, PUT, DELETE...) succeeded
     * on its URL, so the stored answer may be out of date (RFC 9111 4.4). Its variants are left to expire.
     */
    void invalidate(byte[] key) {
        writer.delete(key);
    }

    /**
     * Deletes the entries a purge names (exactly one of {@code url} and {@code prefix}; see {@link Purge}), in the
     * background, after the writes queued before it. Completes with the number of stored responses deleted; fails
     * when the writer's queue is full.
     *
     * @throws IllegalArgumentException when the parameters do not name entries
     */
    public CompletableFuture<Integer> purge(String url, String prefix) {
        Purge purge = Purge.parse(url, prefix);
        return writer.purge(purge, purge.exactKey(maxKeyBytes));
    }

    public ContentCacheStats stats() {
        long entries;
        try {
            entries = closed ? -1 : store.size();
        } catch (RuntimeException e) {
            entries = -1;
        }
        long bytes;
        try {
            bytes = closed ? -1 : store.stats().diskBytes();
        } catch (RuntimeException e) {
            bytes = -1;
        }
        return new ContentCacheStats(hits.sum(), misses.sum(), stale.sum(), revalidated.sum(), coalesced.sum(),
                writer.stores(), writer.dropped(), expired.sum() + writer.swept(), uncacheable.sum(), corrupt.sum(),
                writer.purged(), entries, bytes);
    }

    /** Returns once every write queued before the call is done (up to 30 s): a repeat request is then a HIT. */
    public void awaitWrites() throws InterruptedException, ExecutionException, TimeoutException {
        writer.awaitIdle();
    }

    /** Finishes queued writes (up to 30 s), stops the writer and closes the store if this cache opened it. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        writer.close();
        if (!writer.isTerminated()) {
            LOG.warn("content cache writer still busy after 30 s; closing the store under it");
        }
        if (ownsStore) {
            store.close();
        }
    }
}
