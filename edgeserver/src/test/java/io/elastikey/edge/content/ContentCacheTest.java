package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(Leaks.class)
class ContentCacheTest {
    private static final int MAX_ENTRY = 64 << 10;

    @TempDir
    Path dir;
    private ElasticStore store;
    private ContentCache cache;

    @BeforeEach
    void open() {
        store = ElasticStore.open(ElasticStoreConfig.builder(dir.resolve("store")).memoryBudgetBytes(1 << 20)
                .indexCapacity(10_000).fsyncPolicy(FsyncPolicy.NEVER).maxValueSize(MAX_ENTRY).build());
        cache = new ContentCache(store, store.config().maxKeySize(), MAX_ENTRY);
    }

    @AfterEach
    void close() {
        cache.close();
        store.close();
    }

    static HttpRequest get(String uri, String... headers) {
        HttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri, Unpooled.EMPTY_BUFFER);
        r.headers().set("host", "example.com");
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1]);
        }
        return r;
    }

    static FullHttpResponse ok(String body, String... headers) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, UTF_8));
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1]);
        }
        return r;
    }

    /** Offers the response for storage, waits for the writer, and releases it; returns whether it was queued. */
    static boolean store(ContentCache cache, HttpRequest request, FullHttpResponse response) throws Exception {
        try {
            return cache.store(cache.keyOf(request), request.method(), request.headers(), response);
        } finally {
            response.release();
            cache.awaitWrites();
        }
    }

    static String body(CachedResponse r) {
        ByteBuf b = r.body();
        try {
            return b.toString(UTF_8);
        } finally {
            b.release();
        }
    }

    private CachedResponse lookup(HttpRequest request) {
        return cache.lookup(cache.keyOf(request), request.headers(), cache.now());
    }

    @Test
    void missThenHit() throws Exception {
        HttpRequest request = get("/a");
        assertThat(lookup(request)).isNull();
        assertThat(store(cache, request, ok("hello", "cache-control", "max-age=60", "content-type", "text/plain")))
                .isTrue();
        CachedResponse hit = lookup(request);
        assertThat(hit).isNotNull();
        assertThat(body(hit)).isEqualTo("hello");
        assertThat(hit.headers).contains(new CachedResponse.Field("content-type", "text/plain"));
        ContentCacheStats stats = cache.stats();
        assertThat(stats.hits()).isEqualTo(1);
        assertThat(stats.misses()).isEqualTo(1);
        assertThat(stats.stores()).isEqualTo(1);
        assertThat(stats.entries()).isEqualTo(1);
    }

    @Test
    void noStoreAndPrivateAreNeverStored() throws Exception {
        assertThat(store(cache, get("/n"), ok("x", "cache-control", "no-store, max-age=60"))).isFalse();
        assertThat(store(cache, get("/p"), ok("x", "cache-control", "private, max-age=60"))).isFalse();
        assertThat(store(cache, get("/c"), ok("x", "cache-control", "no-cache, max-age=60"))).isFalse();
        assertThat(lookup(get("/n"))).isNull();
        assertThat(lookup(get("/p"))).isNull();
        assertThat(cache.stats().uncacheable()).isEqualTo(3);
        assertThat(store.size()).isZero();
    }

    @Test
    void theOtherSharedCacheRulesKeepResponsesOut() throws Exception {
        assertThat(store(cache, get("/cookie"), ok("x", "cache-control", "max-age=60", "set-cookie", "a=b")))
                .isFalse();
        assertThat(store(cache, get("/star"), ok("x", "cache-control", "max-age=60", "vary", "*"))).isFalse();
        assertThat(store(cache, get("/nolife"), ok("x"))).isFalse();
        assertThat(store(cache, get("/zero"), ok("x", "cache-control", "max-age=0"))).isFalse();
        assertThat(store(cache, get("/bad"), ok("x", "cache-control", "max-age=6 0"))).isFalse();
        assertThat(store(cache, get("/auth", "authorization", "Basic eDp5"), ok("x", "cache-control", "max-age=60")))
                .isFalse();
        assertThat(store(cache, get("/reqnostore", "cache-control", "no-store"), ok("x", "cache-control",
                "max-age=60"))).isFalse();
        FullHttpResponse notFound = ok("x", "cache-control", "max-age=60");
        notFound.setStatus(HttpResponseStatus.NOT_FOUND);
        assertThat(store(cache, get("/404"), notFound)).isFalse();
        HttpRequest post = get("/post");
        post.setMethod(HttpMethod.POST);
        assertThat(store(cache, post, ok("x", "cache-control", "max-age=60"))).isFalse();
        assertThat(store.size()).isZero();
        assertThat(cache.stats().uncacheable()).isEqualTo(9);
    }

    @Test
    void expiresMinusDateGivesALifetimeWithoutMaxAge() throws Exception {
        HttpRequest request = get("/expires");
        assertThat(store(cache, request, ok("x", "date", "Sun, 06 Nov 1994 08:49:37 GMT",
                "expires", "Sun, 06 Nov 1994 08:50:37 GMT"))).isTrue();
        assertThat(store(cache, get("/badexpires"), ok("x", "expires", "0"))).isFalse();
    }

    @Test
    void entriesExpire() throws Exception {
        HttpRequest request = get("/time");
        assertThat(store(cache, request, ok("t", "cache-control", "max-age=1"))).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (lookup(request) != null && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(lookup(request)).isNull();
        assertThat(cache.stats().expired()).isGreaterThanOrEqualTo(1);
        cache.awaitWrites();
        assertThat(store.contains(cache.keyOf(request))).as("deleted from the store").isFalse();
    }

    @Test
    void freshnessFollowsTheClockToTheMillisecond() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (ContentCache timed = new ContentCache(store, false, 1024, MAX_ENTRY, clock, 16, Long.MAX_VALUE)) {
            HttpRequest request = get("/ten");
            assertThat(store(timed, request, ok("x", "cache-control", "s-maxage=10, max-age=1"))).isTrue();
            clock.now = 1_000_000 + 9_999;
            CachedResponse hit = timed.lookup(timed.keyOf(request), request.headers(), timed.now());
            assertThat(hit).isNotNull();
            FullHttpResponse response = hit.toResponse(HttpVersion.HTTP_1_1, false, clock.now);
            assertThat(response.headers().get("age")).isEqualTo("9");
            response.release();
            clock.now = 1_000_000 + 10_000;
            // Judged at the instant the caller gives, not at a second reading of the clock: the handler reads it
            // once per request, and two readings that straddled the expiry answered a counted hit as a miss.
            assertThat(timed.lookup(timed.keyOf(request), request.headers(), 1_000_000 + 9_999)).isNotNull();
            assertThat(timed.lookup(timed.keyOf(request), request.headers(), timed.now())).isNull();
            assertThat(timed.stats().expired()).isEqualTo(1);
        }
    }

    @Test
    void anUpstreamAgeShortensTheLifetime() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (ContentCache timed = new ContentCache(store, false, 1024, MAX_ENTRY, clock, 16, Long.MAX_VALUE)) {
            HttpRequest request = get("/aged");
            assertThat(store(timed, request, ok("x", "cache-control", "max-age=60", "age", "50"))).isTrue();
            clock.now += 9_000;
            CachedResponse hit = timed.lookup(timed.keyOf(request), request.headers(), timed.now());
            FullHttpResponse response = hit.toResponse(HttpVersion.HTTP_1_1, false, clock.now);
            assertThat(response.headers().get("age")).isEqualTo("59");
            response.release();
            clock.now += 1_000;
            assertThat(timed.lookup(timed.keyOf(request), request.headers(), timed.now())).isNull();
            assertThat(store(timed, get("/old"), ok("x", "cache-control", "max-age=60", "age", "60"))).isFalse();
        }
    }

    @Test
    void theSweepDeletesExpiredEntriesNobodyAsksFor() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (ContentCache timed = new ContentCache(store, false, 1024, MAX_ENTRY, clock, 16, 5_000)) {
            HttpRequest old = get("/old");
            assertThat(store(timed, old, ok("x", "cache-control", "max-age=1"))).isTrue();
            clock.now += 10_000;
            assertThat(store(timed, get("/new"), ok("y", "cache-control", "max-age=60"))).isTrue();
            assertThat(store.contains(timed.keyOf(old))).isFalse();
            assertThat(store.size()).isEqualTo(1);
            assertThat(timed.stats().expired()).isEqualTo(1);
        }
    }

    @Test
    void oversizedEntriesAreNotStored() throws Exception {
        assertThat(store(cache, get("/big"), ok("x".repeat(MAX_ENTRY), "cache-control", "max-age=60"))).isFalse();
        assertThat(store(cache, get("/fits"), ok("x".repeat(MAX_ENTRY - 100), "cache-control", "max-age=60")))
                .isTrue();
        assertThat(cache.stats().uncacheable()).isEqualTo(1);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void varyKeepsTheVariantItWasStoredFor() throws Exception {
        assertThat(store(cache, get("/v", "accept-language", "en"), ok("english", "cache-control", "max-age=60",
                "vary", "Accept-Language"))).isTrue();
        assertThat(body(lookup(get("/v", "accept-language", "en")))).isEqualTo("english");
        assertThat(lookup(get("/v", "accept-language", "fr"))).isNull();
        assertThat(lookup(get("/v"))).isNull();
    }

    @Test
    void eachVaryVariantIsKeptUnderItsOwnKey() throws Exception {
        for (String lang : new String[] {"en", "fr"}) {
            assertThat(store(cache, get("/vv", "accept-language", lang), ok(lang, "cache-control", "max-age=60",
                    "vary", "Accept-Language"))).isTrue();
        }
        assertThat(body(lookup(get("/vv", "accept-language", "en")))).isEqualTo("en");
        assertThat(body(lookup(get("/vv", "accept-language", "fr")))).isEqualTo("fr");
        assertThat(lookup(get("/vv", "accept-language", "de"))).isNull();
        assertThat(store.size()).as("an index and two variants").isEqualTo(3);
        assertThat(cache.purge("/vv", null).get()).isEqualTo(2);
        assertThat(store.size()).isZero();
    }

    @Test
    void aStaleEntryIsKeptWhileItCanBeRevalidatedOrServedStale() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (ContentCache timed = new ContentCache(store, false, 1024, MAX_ENTRY, clock, 16, Long.MAX_VALUE)) {
            HttpRequest tagged = get("/tagged");
            HttpRequest swr = get("/swr");
            HttpRequest plain = get("/plain");
            assertThat(store(timed, tagged, ok("t", "cache-control", "max-age=1", "etag", "\"1\""))).isTrue();
            assertThat(store(timed, swr, ok("s", "cache-control", "max-age=1, stale-while-revalidate=10"))).isTrue();
            assertThat(store(timed, plain, ok("p", "cache-control", "max-age=1"))).isTrue();
            clock.now += 5_000;
            CachedResponse stale = timed.lookup(timed.keyOf(swr), swr.headers(), timed.now());
            assertThat(stale.isFresh(clock.now)).isFalse();
            assertThat(stale.servableWhileRevalidating(clock.now)).isTrue();
            assertThat(stale.servableOnError(clock.now)).isFalse();
            assertThat(timed.lookup(timed.keyOf(tagged), tagged.headers(), timed.now()).hasValidator()).isTrue();
            assertThat(timed.lookup(timed.keyOf(plain), plain.headers(), timed.now())).as("nothing to do with it")
                    .isNull();
            clock.now += 10_000;
            assertThat(timed.lookup(timed.keyOf(swr), swr.headers(), timed.now())).as("past its window").isNull();
            assertThat(timed.lookup(timed.keyOf(tagged), tagged.headers(), timed.now())).isNotNull();
            clock.now += CachedResponse.REVALIDATION_WINDOW_MILLIS;
            assertThat(timed.lookup(timed.keyOf(tagged), tagged.headers(), timed.now())).isNull();
        }
    }

    @Test
    void a304RefreshesTheHeadersAndTheFreshnessAndKeepsTheBody() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (ContentCache timed = new ContentCache(store, false, 1024, MAX_ENTRY, clock, 16, Long.MAX_VALUE)) {
            HttpRequest request = get("/r");
            assertThat(store(timed, request, ok("body", "cache-control", "max-age=1", "etag", "\"1\"",
                    "content-type", "text/plain"))).isTrue();
            clock.now += 2_000;
            byte[] key = timed.keyOf(request);
            CachedResponse stale = timed.lookup(key, request.headers(), timed.now());
            HttpHeaders notModified = new DefaultHttpHeaders().add("cache-control", "max-age=100")
                    .add("etag", "\"1\"");
            CachedResponse refreshed = timed.refresh(key, stale, notModified, request.headers());
            assertThat(refreshed.isFresh(clock.now + 99_000)).isTrue();
            assertThat(refreshed.header("cache-control")).isEqualTo("max-age=100");
            assertThat(refreshed.header("content-type")).isEqualTo("text/plain");
            timed.awaitWrites();
            CachedResponse stored = timed.lookup(key, request.headers(), timed.now());
            assertThat(stored.isFresh(clock.now)).isTrue();
            assertThat(body(stored)).isEqualTo("body");
            assertThat(timed.refresh(key, stored, new DefaultHttpHeaders().add("cache-control", "no-store"),
                    request.headers()).isFresh(clock.now)).as("served once, not kept").isFalse();
            timed.awaitWrites();
            assertThat(store.contains(key)).isFalse();
        }
    }

    @Test
    void keysIgnoreHostCaseAndDefaultPortsAndTakeTheHostOfAnAbsoluteTarget() {
        byte[] plain = cache.keyOf(get("/x?q=1"));
        HttpRequest upper = get("/x?q=1");
        upper.headers().set("host", "Example.COM:443");
        HttpRequest absolute = get("http://example.com/x?q=1");
        absolute.headers().set("host", "other.example");
        assertThat(new String(plain, UTF_8)).isEqualTo("example.com/x?q=1");
        assertThat(cache.keyOf(upper)).isEqualTo(plain);
        assertThat(cache.keyOf(absolute)).isEqualTo(plain);
        HttpRequest port = get("/x?q=1");
        port.headers().set("host", "example.com:8443");
        assertThat(cache.keyOf(port)).isNotEqualTo(plain);
    }

    @Test
    void longKeysAreHashedAndStillWork() throws Exception {
        HttpRequest request = get("/" + "a".repeat(5_000));
        byte[] key = cache.keyOf(request);
        assertThat(key).hasSize(CacheKeys.HASHED_LENGTH);
        assertThat(key[0]).isEqualTo(CacheKeys.HASHED);
        assertThat(store(cache, request, ok("long", "cache-control", "max-age=60"))).isTrue();
        assertThat(body(lookup(request))).isEqualTo("long");
        assertThat(lookup(get("/" + "a".repeat(4_999) + "b"))).isNull();
    }

    @Test
    void aCorruptValueIsAMissAndIsDeleted() throws Exception {
        HttpRequest request = get("/corrupt");
        byte[] key = cache.keyOf(request);
        store.put(key, new byte[] {1, 0, (byte) 200, 9, 9});
        assertThat(lookup(request)).isNull();
        assertThat(cache.stats().corrupt()).isEqualTo(1);
        cache.awaitWrites();
        assertThat(store.contains(key)).isFalse();
    }

    @Test
    void anUnsafeMethodInvalidates() throws Exception {
        HttpRequest request = get("/doc");
        assertThat(store(cache, request, ok("v1", "cache-control", "max-age=60"))).isTrue();
        cache.invalidate(cache.keyOf(request));
        cache.awaitWrites();
        assertThat(lookup(request)).isNull();
    }

    @Test
    void writesAreDroppedWhenTheQueueIsFull() throws Exception {
        GatedStore gated = new GatedStore(store);
        try (ContentCache small = new ContentCache(gated, false, 1024, MAX_ENTRY, Clock.systemUTC(), 1,
                Long.MAX_VALUE)) {
            FullHttpResponse a = ok("a", "cache-control", "max-age=60");
            FullHttpResponse b = ok("b", "cache-control", "max-age=60");
            FullHttpResponse c = ok("c", "cache-control", "max-age=60");
            HttpRequest ra = get("/a");
            assertThat(small.store(small.keyOf(ra), HttpMethod.GET, ra.headers(), a)).isTrue();
            gated.entered.await(); // the writer holds /a, blocked
            HttpRequest rb = get("/b");
            assertThat(small.store(small.keyOf(rb), HttpMethod.GET, rb.headers(), b)).isTrue(); // queued
            HttpRequest rc = get("/c");
            assertThat(small.store(small.keyOf(rc), HttpMethod.GET, rc.headers(), c)).isFalse(); // queue full
            a.release();
            b.release();
            c.release();
            gated.open.countDown();
            small.awaitWrites();
            assertThat(small.stats().droppedStores()).isEqualTo(1);
            assertThat(small.stats().stores()).isEqualTo(2);
            assertThat(body(small.lookup(small.keyOf(rb), rb.headers(), small.now()))).isEqualTo("b");
        }
    }

    @Test
    void badLimitsFailFast() {
        assertThatThrownBy(() -> new ContentCache(store, 32, MAX_ENTRY)).hasMessageContaining("maxKeyBytes");
        assertThatThrownBy(() -> new ContentCache(store, 1024, MAX_ENTRY + 1)).hasMessageContaining("maxValueSize");
    }

    @Test
    void openElasticSurvivesARestart() throws Exception {
        Path own = dir.resolve("own");
        HttpRequest request = get("/kept");
        try (ContentCache opened = ContentCache.openElastic(own, 1 << 20, 128 << 10)) {
            assertThat(store(opened, request, ok("kept", "cache-control", "max-age=600"))).isTrue();
        }
        try (ContentCache reopened = ContentCache.openElastic(own, 1 << 20, 128 << 10)) {
            CachedResponse kept = reopened.lookup(reopened.keyOf(request), request.headers(), reopened.now());
            assertThat(body(kept)).isEqualTo("kept");
        }
    }

    /** A clock tests move by hand. */
    static final class MutableClock extends Clock {
        volatile long now;

        MutableClock(long now) {
            this.now = now;
        }

        @Override
        public long millis() {
            return now;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    /** The real store, with puts held at a gate so a test can fill the write queue. */
    static final class GatedStore implements KeyValueStore {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);
        private final KeyValueStore delegate;

        GatedStore(KeyValueStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public void put(byte[] key, byte[] value) {
            entered.countDown();
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            delegate.put(key, value);
        }

        @Override public byte[] get(byte[] key) { return delegate.get(key); }
        @Override public int get(byte[] key, java.nio.ByteBuffer dst) { return delegate.get(key, dst); }
        @Override public boolean delete(byte[] key) { return delegate.delete(key); }
        @Override public boolean contains(byte[] key) { return delegate.contains(key); }
        @Override public long size() { return delegate.size(); }
        @Override public void forEach(java.util.function.BiConsumer<byte[], byte[]> v) { delegate.forEach(v); }
        @Override public int maxValueSize() { return delegate.maxValueSize(); }
        @Override public io.elastikey.store.StoreStats stats() { return delegate.stats(); }
        @Override public void close() { }
    }
}
