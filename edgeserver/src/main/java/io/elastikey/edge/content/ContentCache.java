// ContentCache -- the edge's shared HTTP cache over a KeyValueStore: inline reads, one background writer.
package io.elastikey.edge.content;

import io.elastikey.edge.content.CachedResponse.Field;
import io.elastikey.edge.content.StorePolicy.Freshness;
import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.KeyValueStore;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Entries expire: one past its lifetime is a miss, and is deleted when a lookup finds it or by the writer's
 * periodic sweep ({@value #SWEEP_INTERVAL_MILLIS} ms). A value that does not decode is a miss and deleted too:
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
    private final RateLimitedWarning warnings = new RateLimitedWarning(LOG, Duration.ofSeconds(10));
    private final CacheWriter writer;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder uncacheable = new LongAdder();
    private final LongAdder corrupt = new LongAdder();
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

    /** A fresh stored response matching the request's {@code Vary} values, or null (a miss). Never throws. */
    CachedResponse lookup(byte[] key, HttpHeaders request) {
        byte[] value;
        try {
            value = store.get(key);
        } catch (CorruptRecordException e) {
            value = new byte[0]; // decodes to null: counted and deleted below
        } catch (RuntimeException e) {
            warnings.warn("content cache lookup failed: {}", e.toString());
            misses.increment();
            return null;
        }
        if (value == null) {
            misses.increment();
            return null;
        }
        CachedResponse r = CachedResponse.decode(value);
        if (r == null || r.expiresAt <= clock.millis()) {
            (r == null ? corrupt : expired).increment();
            misses.increment();
            writer.deleteIfStale(key);
            return null;
        }
        if (!StorePolicy.varyMatches(r.vary, request)) {
            misses.increment();
            return null;
        }
        hits.increment();
        return r;
    }

    /**
     * Queues {@code response} for storage if the rules and the size limit allow; returns whether it was queued.
     * Reads what it needs from the response before returning; the caller keeps ownership and may send it on.
     */
    boolean store(byte[] key, HttpMethod method, HttpHeaders request, FullHttpResponse response) {
        Freshness fresh = StorePolicy.freshness(method, request, response, clock.millis());
        List<Field> vary = fresh == null ? null : StorePolicy.varyFields(response.headers(), request);
        List<Field> headers = vary == null ? null : StorePolicy.replayed(response.headers());
        int bodyLength = response.content().readableBytes();
        int size = headers == null ? -1 : CachedResponse.encodedSize(headers, vary, bodyLength);
        if (size < 0 || size > maxEntryBytes) {
            uncacheable.increment();
            return false;
        }
        int status = response.status().code();
        return writer.put(key, response.content().retainedDuplicate(), size, body -> CachedResponse.encode(status,
                headers, vary, fresh.storedAt(), fresh.expiresAt(), body, size));
    }

    /**
     * Deletes what is stored under {@code key}, in the background: an unsafe method (POST, PUT, DELETE...) succeeded
     * on its URL, so the stored answer may be out of date (RFC 9111 4.4).
     */
    void invalidate(byte[] key) {
        writer.delete(key);
    }

    public ContentCacheStats stats() {
        long entries;
        try {
            entries = closed ? -1 : store.size();
        } catch (RuntimeException e) {
            entries = -1;
        }
        return new ContentCacheStats(hits.sum(), misses.sum(), writer.stores(), writer.dropped(),
                expired.sum() + writer.swept(), uncacheable.sum(), corrupt.sum(), entries);
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
