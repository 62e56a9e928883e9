package io.elastikey.edge;

import io.elastikey.edge.ScriptedOrigin.Answer;
import io.elastikey.edge.ScriptedOrigin.Gate;
import io.elastikey.keyserver.KeyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edge's content cache as operators expect it, over real TLS (the JDK client over HTTP/2 and HTTP/1.1, and
 * curl) in front of an origin the test scripts: revalidation, the client's own conditionals, stale-while-revalidate,
 * stale-if-error, request coalescing, Vary, purge and the cache's metrics.
 *
 * <p>Entries are made stale by their own {@code max-age=1} running out (a sleep of 1.1 s after they were stored);
 * no assertion depends on how fast anything runs: concurrency is established by gates in the origin and read back
 * from the edge's gauges.
 */
class EdgeCacheTest {
    @TempDir
    static Path root;
    static EdgeFixture suite;
    static KeyServer keyServer;
    static ScriptedOrigin origin;
    static EdgeServer edge;
    static HttpClient h2;
    static HttpClient h1;
    /** Handshakes are not under test here: key-server time limits a loaded test machine cannot miss. */
    static final Map<String, String> SLOW_MACHINE = Map.of("keyservers.timeout", "5s", "keyservers.deadline", "20s");

    @BeforeAll
    static void start() throws Exception {
        suite = EdgeFixture.create(root);
        keyServer = suite.startKeyServer(0, 0);
        origin = suite.startScriptedOrigin();
        edge = suite.startEdge(List.of(keyServer.address()), origin.address(), SLOW_MACHINE);
        h2 = suite.client(EdgeFixture.EC_NAME, "TLSv1.3", null);
        h1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(suite.trustingDevCa()).build();
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    private static HttpResponse<String> get(String path, String... headers) throws Exception {
        return get(h2, edge, path, headers);
    }

    private static HttpResponse<String> get(HttpClient client, EdgeServer server, String path, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(EdgeFixture.uri(server, path));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String xCache(HttpResponse<?> r) {
        return r.headers().firstValue("x-cache").orElse("none");
    }

    /** Waits until what was stored so far is past a {@code max-age=1}. */
    private static void staleAfterOneSecond() throws Exception {
        edge.awaitCacheWrites();
        Thread.sleep(1100);
    }

    private static HttpResponse<String> admin(String method, String pathAndQuery) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + edge.adminAddress().getPort() + pathAndQuery))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double metric(String name) throws Exception {
        return EdgeFixture.metric(edge.adminAddress(), name);
    }

    /** Polls {@code condition} for up to 30 s; the bound is a guard against a hang, not a timing check. */
    private static void await(String what, BooleanSupplier condition) throws Exception {
        for (int i = 0; i < 1500 && !condition.getAsBoolean(); i++) {
            Thread.sleep(20);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    private static BooleanSupplier metricIs(String name, double value) {
        return () -> {
            try {
                return metric(name) == value;
            } catch (Exception e) {
                return false;
            }
        };
    }

    @Test
    void aStaleEntryWithAnETagIsRevalidatedAndThe304RefreshesIt() throws Exception {
        origin.on("/rv", r -> "\"v1\"".equals(r.headers().getFirst("If-None-Match"))
                ? Answer.of(304, null, "ETag", "\"v1\"", "Cache-Control", "max-age=60")
                : Answer.ok("body v1", "ETag", "\"v1\"", "Cache-Control", "max-age=1"));
        assertThat(xCache(get("/rv"))).isEqualTo("MISS");
        staleAfterOneSecond();
        double revalidated = metric("elastikey_edge_cache_revalidated_total");

        HttpResponse<String> r = get("/rv");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(xCache(r)).isEqualTo("REVALIDATED");
        assertThat(r.body()).isEqualTo("body v1");
        assertThat(r.headers().firstValue("cache-control")).hasValue("max-age=60");
        assertThat(origin.seen("/rv")).hasSize(2);
        assertThat(origin.seen("/rv").get(1).headers().getFirst("If-None-Match")).isEqualTo("\"v1\"");
        edge.awaitCacheWrites();
        HttpResponse<String> hit = get("/rv");
        assertThat(xCache(hit)).as("the 304 made the entry fresh for 60 s").isEqualTo("HIT");
        assertThat(hit.body()).isEqualTo("body v1");
        assertThat(origin.seen("/rv")).hasSize(2);
        assertThat(metric("elastikey_edge_cache_revalidated_total")).isEqualTo(revalidated + 1);
    }

    @Test
    void lastModifiedIsTheValidatorWithoutAnETag() throws Exception {
        String lm = "Tue, 03 Nov 2026 10:00:00 GMT";
        origin.on("/lm", r -> lm.equals(r.headers().getFirst("If-Modified-Since"))
                ? Answer.of(304, null, "Cache-Control", "max-age=60")
                : Answer.ok("dated", "Last-Modified", lm, "Cache-Control", "max-age=1"));
        get("/lm");
        staleAfterOneSecond();
        HttpResponse<String> r = get("/lm");
        assertThat(xCache(r)).isEqualTo("REVALIDATED");
        assertThat(r.body()).isEqualTo("dated");
        assertThat(r.headers().firstValue("last-modified")).hasValue(lm);
    }

    @Test
    void aChangedAnswerReplacesTheStaleEntry() throws Exception {
        AtomicInteger version = new AtomicInteger(1);
        origin.on("/chg", r -> {
            String etag = "\"v" + version.get() + "\"";
            return etag.equals(r.headers().getFirst("If-None-Match")) ? Answer.of(304, null, "ETag", etag)
                    : Answer.ok("version " + version.get(), "ETag", etag, "Cache-Control", "max-age=1");
        });
        assertThat(get("/chg").body()).isEqualTo("version 1");
        staleAfterOneSecond();
        version.set(2);
        HttpResponse<String> r = get("/chg");
        assertThat(xCache(r)).isEqualTo("MISS");
        assertThat(r.body()).isEqualTo("version 2");
        assertThat(origin.seen("/chg").get(1).headers().getFirst("If-None-Match")).isEqualTo("\"v1\"");
        edge.awaitCacheWrites();
        assertThat(get("/chg").body()).isEqualTo("version 2");
        assertThat(xCache(get("/chg"))).isEqualTo("HIT");
    }

    @Test
    void clientsConditionalRequestsAreAnsweredByTheEdge() throws Exception {
        String lm = "Mon, 02 Nov 2026 10:00:00 GMT";
        origin.on("/cond", r -> Answer.ok("conditional", "ETag", "W/\"c1\"", "Last-Modified", lm,
                "Cache-Control", "max-age=60"));
        HttpResponse<String> first = get("/cond", "If-None-Match", "\"c1\"");
        assertThat(first.statusCode()).as("a miss with the client's own tag: 304 to it, the whole answer stored")
                .isEqualTo(304);
        assertThat(origin.seen("/cond").get(0).headers().containsKey("If-None-Match")).isFalse();
        edge.awaitCacheWrites();

        HttpResponse<String> match = get("/cond", "If-None-Match", "\"x\", W/\"c1\"");
        assertThat(match.statusCode()).isEqualTo(304);
        assertThat(xCache(match)).isEqualTo("HIT");
        assertThat(match.body()).isEmpty();
        assertThat(match.headers().firstValue("etag")).hasValue("W/\"c1\"");
        assertThat(get("/cond", "If-None-Match", "\"other\"").statusCode()).isEqualTo(200);
        assertThat(get("/cond", "If-Modified-Since", lm).statusCode()).isEqualTo(304);
        assertThat(get("/cond", "If-Modified-Since", "Sun, 01 Nov 2026 10:00:00 GMT").statusCode()).isEqualTo(200);

        int port = edge.address().getPort();
        Tools.Result curl = Tools.run(List.of("curl", "-sS", "--http2", "--max-time", "20", "-o", "/dev/null",
                "-w", "%{http_code} %{http_version}", "-H", "If-None-Match: W/\"c1\"",
                "--cacert", suite.pki().directory().resolve("ca.pem").toString(),
                "https://127.0.0.1:" + port + "/cond")); // the same Host, so the same cache key, as the JDK's
        assertThat(curl.output()).isEqualTo("304 2");
        assertThat(origin.seen("/cond")).hasSize(1);
    }

    @Test
    void staleWhileRevalidateServesAtOnceAndRevalidatesOnceInTheBackground() throws Exception {
        Gate gate = new Gate();
        AtomicInteger generation = new AtomicInteger();
        origin.on("/swr", r -> {
            int n = generation.incrementAndGet();
            if (n > 1) {
                gate.pass();
            }
            return Answer.ok("generation " + n, "Cache-Control", "max-age=1, stale-while-revalidate=60");
        });
        assertThat(get("/swr").body()).isEqualTo("generation 1");
        staleAfterOneSecond();
        double stale = metric("elastikey_edge_cache_stale_total");
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = get(i % 2 == 0 ? h2 : h1, edge, "/swr");
            assertThat(xCache(r)).isEqualTo("STALE");
            assertThat(r.body()).isEqualTo("generation 1");
        }
        await("the background revalidation reached the origin", () -> gate.waiting.get() == 1);
        assertThat(origin.seen("/swr")).as("one revalidation for the five stale answers").hasSize(2);
        assertThat(metric("elastikey_edge_cache_stale_total")).isEqualTo(stale + 5);

        double stores = metric("elastikey_edge_cache_stores_total");
        gate.open();
        await("the revalidated answer was stored", metricIs("elastikey_edge_cache_stores_total", stores + 1));
        HttpResponse<String> fresh = get("/swr");
        assertThat(xCache(fresh)).isEqualTo("HIT");
        assertThat(fresh.body()).isEqualTo("generation 2");
        assertThat(origin.seen("/swr")).hasSize(2);
    }

    @Test
    void staleIfErrorServesTheStaleEntryWhenTheOriginAnswers5xx() throws Exception {
        AtomicBoolean failing = new AtomicBoolean();
        origin.on("/sie", r -> failing.get() ? Answer.of(503, "down\n")
                : Answer.ok("kept", "Cache-Control", "max-age=1, stale-if-error=60"));
        origin.on("/nosie", r -> failing.get() ? Answer.of(503, "down\n") : Answer.ok("kept", "Cache-Control", "max-age=1"));
        origin.on("/mustrv", r -> failing.get() ? Answer.of(503, "down\n")
                : Answer.ok("kept", "Cache-Control", "max-age=1, stale-if-error=60, must-revalidate"));
        get("/sie");
        get("/nosie");
        get("/mustrv");
        staleAfterOneSecond();
        failing.set(true);

        HttpResponse<String> r = get("/sie");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(xCache(r)).isEqualTo("STALE");
        assertThat(r.body()).isEqualTo("kept");
        assertThat(get("/nosie").statusCode()).isEqualTo(503);
        assertThat(get("/mustrv").statusCode()).as("must-revalidate forbids serving it stale").isEqualTo(503);
    }

    @Test
    void staleIfErrorCoversAnOriginThatIsDown() throws Exception {
        ScriptedOrigin lone = new ScriptedOrigin();
        EdgeServer second;
        try {
            lone.on("/x", r -> Answer.ok("still here", "Cache-Control", "max-age=1, stale-if-error=60"));
            lone.on("/y", r -> Answer.ok("gone", "Cache-Control", "max-age=1"));
            second = suite.startEdge(List.of(keyServer.address()), lone.address(),
                    Map.of("cache.dir", root.resolve("cache-2").toString(), "keyservers.timeout", "5s",
                            "keyservers.deadline", "20s"));
            get(h2, second, "/x");
            get(h2, second, "/y");
            second.awaitCacheWrites();
        } finally {
            lone.close();
        }
        Thread.sleep(1100);
        HttpResponse<String> r = get(h2, second, "/x");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(xCache(r)).isEqualTo("STALE");
        assertThat(r.body()).isEqualTo("still here");
        assertThat(get(h2, second, "/y").statusCode()).isEqualTo(502);
    }

    @Test
    void concurrentMissesForOneUrlMakeOneOriginRequest() throws Exception {
        Gate gate = new Gate();
        origin.on("/held", r -> {
            gate.pass();
            return Answer.ok("held body", "Cache-Control", "max-age=60");
        });
        double coalesced = metric("elastikey_edge_cache_coalesced_total");
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            HttpClient client = i % 2 == 0 ? h2 : h1;
            answers.add(client.sendAsync(HttpRequest.newBuilder(EdgeFixture.uri(edge, "/held")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        await("one request at the origin, 19 waiting at the edge", () -> gate.waiting.get() == 1
                && metricIs("elastikey_edge_cache_coalescing_waiting", 19).getAsBoolean());
        gate.open();
        for (CompletableFuture<HttpResponse<String>> a : answers) {
            HttpResponse<String> r = a.join();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("held body");
            assertThat(xCache(r)).isEqualTo("MISS");
        }
        assertThat(origin.seen("/held")).hasSize(1);
        assertThat(metric("elastikey_edge_cache_coalesced_total")).isEqualTo(coalesced + 19);
    }

    @Test
    void waitersFetchTheirOwnWhenTheAnswerIsNotForSharing() throws Exception {
        Gate gate = new Gate();
        AtomicInteger n = new AtomicInteger();
        origin.on("/mine", r -> {
            gate.pass();
            return Answer.ok("for request " + n.incrementAndGet(), "Cache-Control", "private, max-age=60");
        });
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(h2.sendAsync(HttpRequest.newBuilder(EdgeFixture.uri(edge, "/mine")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        await("one request at the origin, 4 waiting", () -> gate.waiting.get() == 1
                && metricIs("elastikey_edge_cache_coalescing_waiting", 4).getAsBoolean());
        gate.open();
        List<String> bodies = answers.stream().map(a -> a.join().body()).sorted().toList();
        assertThat(bodies).containsExactly("for request 1", "for request 2", "for request 3", "for request 4",
                "for request 5");
        assertThat(origin.seen("/mine")).hasSize(5);
    }

    @Test
    void varyKeepsOneEntryPerVariantAndVaryStarNone() throws Exception {
        origin.on("/lang", r -> Answer.ok("lang=" + r.headers().getFirst("Accept-Language"), "Vary",
                "Accept-Language", "Cache-Control", "max-age=60"));
        origin.on("/star", r -> Answer.ok("any", "Vary", "*", "Cache-Control", "max-age=60"));
        assertThat(xCache(get("/lang", "Accept-Language", "fr"))).isEqualTo("MISS");
        assertThat(xCache(get("/lang", "Accept-Language", "de"))).isEqualTo("MISS");
        get("/star");
        edge.awaitCacheWrites();
        for (String lang : List.of("fr", "de", "fr")) {
            HttpResponse<String> r = get("/lang", "Accept-Language", lang);
            assertThat(xCache(r)).isEqualTo("HIT");
            assertThat(r.body()).isEqualTo("lang=" + lang);
        }
        assertThat(xCache(get("/lang", "Accept-Language", "it"))).isEqualTo("MISS");
        assertThat(origin.seen("/lang")).hasSize(3);
        assertThat(xCache(get("/star"))).isEqualTo("MISS");
    }

    @Test
    void purgeByUrlAndByPrefixOnTheAdminPort() throws Exception {
        for (String p : List.of("/p/a", "/p/b", "/q", "/v")) {
            origin.on(p, r -> Answer.ok(p, "Cache-Control", "max-age=60", "Vary", "Accept-Language"));
        }
        for (String p : List.of("/p/a", "/p/b", "/q")) {
            get(p);
        }
        get("/v", "Accept-Language", "fr");
        get("/v", "Accept-Language", "de");
        edge.awaitCacheWrites();
        double purged = metric("elastikey_edge_cache_purged_total");

        HttpResponse<String> one = admin("POST", "/purge?url=/p/a");
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(one.body().trim()).isEqualTo("{\"purged\": 1}");
        assertThat(xCache(get("/p/a"))).isEqualTo("MISS");
        assertThat(xCache(get("/p/b"))).isEqualTo("HIT");
        edge.awaitCacheWrites();

        assertThat(admin("POST", "/purge?prefix=/p/").body().trim()).isEqualTo("{\"purged\": 2}");
        assertThat(xCache(get("/p/b"))).isEqualTo("MISS");
        assertThat(xCache(get("/q"))).isEqualTo("HIT");
        int port = edge.address().getPort();
        assertThat(admin("POST", "/purge?url=https://127.0.0.1:" + port + "/v").body().trim())
                .as("both variants").isEqualTo("{\"purged\": 2}");
        assertThat(xCache(get("/v", "Accept-Language", "fr"))).isEqualTo("MISS");
        assertThat(admin("POST", "/purge?url=https://elsewhere.test/q").body().trim()).isEqualTo("{\"purged\": 0}");
        assertThat(xCache(get("/q"))).isEqualTo("HIT");
        assertThat(metric("elastikey_edge_cache_purged_total")).isEqualTo(purged + 5);

        assertThat(admin("GET", "/purge?url=/q").statusCode()).isEqualTo(405);
        assertThat(admin("POST", "/purge").statusCode()).isEqualTo(400);
        assertThat(admin("POST", "/purge?url=q").statusCode()).isEqualTo(400);
        assertThat(admin("POST", "/purge?url=/q&prefix=/").statusCode()).isEqualTo(400);
        assertThat(xCache(get("/q"))).isEqualTo("HIT");
    }

    @Test
    void theMetricsShowTheCacheSizeAndEveryOutcome() throws Exception {
        origin.on("/m", r -> Answer.ok("m", "Cache-Control", "max-age=60"));
        get("/m");
        edge.awaitCacheWrites();
        get("/m");
        String text = admin("GET", "/metrics").body();
        assertThat(text).contains("elastikey_edge_cache_entries ", "elastikey_edge_cache_bytes ",
                "elastikey_edge_cache_hits_total ", "elastikey_edge_cache_misses_total ",
                "elastikey_edge_cache_stale_total ", "elastikey_edge_cache_revalidated_total ",
                "elastikey_edge_cache_coalesced_total ", "elastikey_edge_cache_purged_total ",
                "elastikey_edge_cache_hit_ratio ");
        assertThat(metric("elastikey_edge_cache_entries ")).isGreaterThanOrEqualTo(1);
        assertThat(metric("elastikey_edge_cache_bytes ")).isGreaterThan(0);
        assertThat(metric("elastikey_edge_cache_hit_ratio ")).isGreaterThan(0).isLessThanOrEqualTo(1);
    }
}
