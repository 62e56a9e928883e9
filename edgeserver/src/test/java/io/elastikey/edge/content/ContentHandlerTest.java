package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.edge.origin.SampleOrigin;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The content path end to end: JDK client, front server with {@link ContentHandler}, sample origin. */
@ExtendWith(Leaks.class)
class ContentHandlerTest {
    private static final String HELLO = "hello from the elastikey sample origin\n";

    @TempDir
    Path dir;
    private SampleOrigin origin;
    private ContentCache cache;
    private OriginClient client;
    private FrontServer front;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() {
        origin = SampleOrigin.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        cache = ContentCache.openElastic(dir, 4 << 20, 2 << 20);
        client = new OriginClient(origin.address(), OriginOptions.defaults());
        front = new FrontServer(new ContentHandler(cache, client));
    }

    @AfterEach
    void stop() {
        front.close();
        client.close();
        cache.close();
        origin.close();
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(front.uri(path));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b.GET());
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A GET that returns once its answer is in the cache (stores are asynchronous). */
    private HttpResponse<byte[]> getAndStore(String path) throws Exception {
        HttpResponse<byte[]> r = get(path);
        cache.awaitWrites();
        return r;
    }

    private static String xCache(HttpResponse<?> r) {
        return r.headers().firstValue("x-cache").orElse("");
    }

    @Test
    void aMissThenAHitWithTheSameBodyThatNeverReachesTheOrigin() throws Exception {
        HttpResponse<byte[]> miss = getAndStore("/hello");
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(new String(miss.body(), US_ASCII)).isEqualTo(HELLO);
        long served = origin.requestCount();
        HttpResponse<byte[]> hit = get("/hello");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(hit.body()).isEqualTo(miss.body());
        assertThat(hit.headers().firstValue("etag")).hasValue("\"hello-1\"");
        assertThat(hit.headers().firstValue("content-type")).isEqualTo(miss.headers().firstValue("content-type"));
        assertThat(hit.headers().firstValueAsLong("age")).isPresent();
        assertThat(hit.headers().firstValue("via")).hasValue(ProxyHeaders.VIA);
        assertThat(origin.requestCount()).isEqualTo(served);
        assertThat(cache.stats().hits()).isEqualTo(1);
    }

    @Test
    void noStoreIsAlwaysAMissAndAlwaysReachesTheOrigin() throws Exception {
        for (int i = 1; i <= 3; i++) {
            HttpResponse<byte[]> r = getAndStore("/nostore");
            assertThat(xCache(r)).isEqualTo("MISS");
            assertThat(origin.requestCount()).isEqualTo(i);
        }
    }

    @Test
    void privateIsNeverCached() throws Exception {
        getAndStore("/private");
        assertThat(xCache(get("/private"))).isEqualTo("MISS");
        assertThat(origin.requestCount()).isEqualTo(2);
        assertThat(cache.stats().stores()).isZero();
    }

    @Test
    void aShortLivedAnswerExpires() throws Exception {
        HttpResponse<byte[]> first = getAndStore("/time");
        assertThat(xCache(first)).isEqualTo("MISS");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        HttpResponse<byte[]> r;
        do {
            Thread.sleep(200);
            r = get("/time");
            if (xCache(r).equals("HIT")) {
                assertThat(r.body()).isEqualTo(first.body());
            }
        } while (!xCache(r).equals("MISS") && System.nanoTime() < deadline);
        assertThat(xCache(r)).isEqualTo("MISS");
        assertThat(r.body()).isNotEqualTo(first.body());
        assertThat(cache.stats().expired()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aDownOriginIsA502WithAOneLineBody() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (OriginClient down = new OriginClient(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                OriginOptions.defaults()); FrontServer edge = new FrontServer(new ContentHandler(cache, down))) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(edge.uri("/hello"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(r.body()).startsWith("502 Bad Gateway: ").endsWith("\n").doesNotContain(String.valueOf(port));
            assertThat(r.body().lines()).hasSize(1);
            assertThat(r.headers().firstValue("cache-control")).hasValue("no-store");
        }
    }

    @Test
    void aMegabyteBodyIsIntactFromTheOriginAndFromTheCache() throws Exception {
        byte[] expected = SampleOrigin.bytes(1_000_000);
        HttpResponse<byte[]> miss = getAndStore("/bytes/1000000");
        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(miss.body()).isEqualTo(expected);
        HttpResponse<byte[]> hit = get("/bytes/1000000");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(hit.body()).isEqualTo(expected);
    }

    @Test
    void postPassesThroughUncached() throws Exception {
        for (int i = 1; i <= 2; i++) {
            HttpResponse<byte[]> r = send(HttpRequest.newBuilder(front.uri("/echo"))
                    .POST(HttpRequest.BodyPublishers.ofString("body " + i)));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(xCache(r)).isEqualTo("BYPASS");
            assertThat(new String(r.body(), US_ASCII)).startsWith("POST /echo\n")
                    .contains("x-forwarded-proto: https\n", "x-forwarded-for: 127.0.0.1\n")
                    .endsWith("\n\nbody " + i);
            assertThat(origin.requestCount()).isEqualTo(i);
        }
    }

    @Test
    void headIsAnsweredFromTheOriginAndThenFromTheCache() throws Exception {
        HttpRequest.Builder head = HttpRequest.newBuilder(front.uri("/hello"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody());
        HttpResponse<byte[]> miss = send(head);
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(xCache(miss)).isEqualTo("MISS");
        assertThat(miss.body()).isEmpty();
        assertThat(miss.headers().firstValueAsLong("content-length")).hasValue(HELLO.length());
        getAndStore("/hello");
        HttpResponse<byte[]> hit = send(head);
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(hit.body()).isEmpty();
        assertThat(hit.headers().firstValueAsLong("content-length")).hasValue(HELLO.length());
        assertThat(origin.requestCount()).isEqualTo(2);
    }

    @Test
    void authorizationBypassesTheCache() throws Exception {
        getAndStore("/hello");
        HttpResponse<byte[]> r = get("/hello", "authorization", "Basic eDp5");
        assertThat(xCache(r)).isEqualTo("BYPASS");
        assertThat(origin.requestCount()).isEqualTo(2);
    }

    @Test
    void varyServesEachLanguageItsOwnAnswer() throws Exception {
        getAndStore("/vary?x");
        assertThat(new String(get("/vary?x", "accept-language", "fr").body(), US_ASCII)).isEqualTo("lang=fr\n");
        cache.awaitWrites();
        HttpResponse<byte[]> hit = get("/vary?x", "accept-language", "fr");
        assertThat(xCache(hit)).isEqualTo("HIT");
        assertThat(new String(hit.body(), US_ASCII)).isEqualTo("lang=fr\n");
        assertThat(xCache(get("/vary?x", "accept-language", "de"))).isEqualTo("MISS");
    }

    @Test
    void withoutACacheEverythingBypasses() throws Exception {
        try (FrontServer edge = new FrontServer(new ContentHandler(client))) {
            for (int i = 1; i <= 2; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(edge.uri("/hello"))
                        .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.body()).isEqualTo(HELLO);
                assertThat(xCache(r)).isEqualTo("BYPASS");
            }
        }
        assertThat(origin.requestCount()).isEqualTo(2);
    }

    @Test
    void nonOkAnswersPassThroughUncached() throws Exception {
        assertThat(getAndStore("/status/404").statusCode()).isEqualTo(404);
        HttpResponse<byte[]> again = get("/status/404");
        assertThat(again.statusCode()).isEqualTo(404);
        assertThat(xCache(again)).isEqualTo("MISS");
        assertThat(get("/nowhere").statusCode()).isEqualTo(404);
    }

    @Test
    void concurrentClientsAllGetTheRightBodies() throws Exception {
        List<String> paths = List.of("/hello", "/bytes/1000", "/bytes/70000", "/", "/nostore");
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String path = paths.get(i % paths.size());
                done.add(pool.submit(() -> {
                    HttpResponse<byte[]> r = get(path);
                    assertThat(r.statusCode()).as(path).isEqualTo(200);
                    if (path.startsWith("/bytes/")) {
                        assertThat(r.body()).isEqualTo(SampleOrigin.bytes(Integer.parseInt(path.substring(7))));
                    } else if (path.equals("/hello")) {
                        assertThat(new String(r.body(), US_ASCII)).isEqualTo(HELLO);
                    } else {
                        assertThat(r.body()).isNotEmpty();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        ContentCacheStats stats = cache.stats();
        assertThat(stats.hits() + stats.misses()).isEqualTo(200);
        assertThat(origin.requestCount()).as("a hit or a coalesced miss costs the origin nothing")
                .isEqualTo(200 - stats.hits() - stats.coalesced());
    }

    @Test
    void connectionCloseIsHonouredAfterTheAnswer() throws Exception {
        String answer = raw("GET /hello HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").containsIgnoringCase("connection: close\r\n")
                .endsWith(HELLO);
    }

    @Test
    void pipelinedAnswersKeepRequestOrder() throws Exception {
        getAndStore("/hello"); // the second request below is a HIT, ready before the slow MISS ahead of it
        String answer = raw("GET /slow?ms=300 HTTP/1.1\r\nHost: a.example\r\n\r\n"
                + "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /bytes/5 HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n");
        int slow = answer.indexOf("slow 300\n");
        int hello = answer.indexOf(HELLO);
        int last = answer.lastIndexOf("HTTP/1.1 200 OK");
        assertThat(slow).isPositive();
        assertThat(hello).isGreaterThan(slow);
        assertThat(last).isGreaterThan(hello);
        assertThat(answer.split("HTTP/1.1 200 OK", -1)).hasSize(4);
    }

    @Test
    void aMalformedRequestIsA400AndClosesTheConnection() throws Exception {
        String answer = raw("GET /hello HTTP/1.1\r\nHost: a.example\r\nContent-Length: x\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 400 Bad Request\r\n");
    }

    /** Sends raw bytes and reads until the server closes the connection. */
    private String raw(String request) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), front.port())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            return all.toString(US_ASCII);
        }
    }
}
