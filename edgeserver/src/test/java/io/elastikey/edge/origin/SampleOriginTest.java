package io.elastikey.edge.origin;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.edge.content.Leaks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Leaks.class)
class SampleOriginTest {
    private static SampleOrigin origin;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        origin = SampleOrigin.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        origin.close();
    }

    private static HttpResponse<byte[]> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    private static HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + origin.address().getPort() + path);
    }

    private static String cacheControl(HttpResponse<?> r) {
        return r.headers().firstValue("cache-control").orElse("");
    }

    @Test
    void eachPathAnswersWithItsCachingHeaders() throws Exception {
        assertThat(cacheControl(get("/"))).isEqualTo("public, max-age=60");
        assertThat(cacheControl(get("/hello"))).isEqualTo("max-age=60");
        assertThat(cacheControl(get("/time"))).isEqualTo("max-age=1");
        assertThat(cacheControl(get("/nostore"))).isEqualTo("no-store");
        assertThat(cacheControl(get("/private"))).isEqualTo("private, max-age=60");
        assertThat(get("/vary").headers().firstValue("vary")).hasValue("accept-language");
        assertThat(get("/").headers().firstValue("content-type")).hasValueSatisfying(v -> v.startsWith("text/html"));
    }

    @Test
    void healthzAnswersOkAndIsNeverCached() throws Exception {
        HttpResponse<byte[]> r = get("/healthz");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("ok\n");
        assertThat(cacheControl(r)).isEqualTo("no-store");
    }

    @Test
    void bytesAreDeterministic() throws Exception {
        HttpResponse<byte[]> r = get("/bytes/100000");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(SampleOrigin.bytes(100_000));
        assertThat(get("/bytes/" + ((16 << 20) + 1)).statusCode()).isEqualTo(404);
        assertThat(get("/bytes/x").statusCode()).isEqualTo(404);
    }

    @Test
    void statusSlowAndUnknownPaths() throws Exception {
        assertThat(get("/status/418").statusCode()).isEqualTo(418);
        assertThat(get("/status/204").statusCode()).isEqualTo(204);
        assertThat(new String(get("/slow?ms=20").body())).isEqualTo("slow 20\n");
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
        assertThat(send(HttpRequest.newBuilder(uri("/hello")).POST(HttpRequest.BodyPublishers.ofString("x")))
                .statusCode()).isEqualTo(405);
    }

    @Test
    void headAnswersTheLengthWithoutTheBody() throws Exception {
        HttpResponse<byte[]> r = send(HttpRequest.newBuilder(uri("/hello")).method("HEAD",
                HttpRequest.BodyPublishers.noBody()));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEmpty();
        assertThat(r.headers().firstValueAsLong("content-length")).hasValue(get("/hello").body().length);
    }

    @Test
    void requestsAreCountedAndConnectionsKeptAlive() throws Exception {
        long requests = origin.requestCount();
        long connections = origin.connectionCount();
        for (int i = 0; i < 5; i++) {
            assertThat(get("/hello").statusCode()).isEqualTo(200);
        }
        assertThat(origin.requestCount()).isEqualTo(requests + 5);
        assertThat(origin.connectionCount()).isLessThanOrEqualTo(connections + 1);
    }
}
