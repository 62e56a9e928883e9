package io.elastikey.edge;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edge as a content server over HTTPS (HTTP/2 and HTTP/1.1), its admin endpoint, and certificates added
 * while it runs.
 */
class EdgeContentAndAdminTest {
    @TempDir
    static Path root;
    static EdgeFixture suite;
    static KeyServer keyServer;
    static SampleOrigin origin;
    static EdgeServer edge;
    static HttpClient h2;

    @BeforeAll
    static void start() throws Exception {
        suite = EdgeFixture.create(root);
        keyServer = suite.startKeyServer(0, 0);
        origin = suite.startOrigin();
        edge = suite.startEdge(List.of(keyServer.address()), origin, Map.of("certificates.reload-interval", "100ms"));
        h2 = suite.client(EdgeFixture.EC_NAME, "TLSv1.3", null);
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    private static HttpResponse<byte[]> get(HttpClient client, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(EdgeFixture.uri(edge, path)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void aCacheableAnswerIsAMissThenAHitThatNeverReachesTheOrigin() throws Exception {
        HttpResponse<byte[]> miss = get(h2, "/bytes/100000");
        edge.awaitCacheWrites();
        long originRequests = origin.requestCount();
        HttpResponse<byte[]> hit = get(h2, "/bytes/100000");

        assertThat(miss.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(miss.headers().firstValue("x-cache")).hasValue("MISS");
        assertThat(hit.headers().firstValue("x-cache")).hasValue("HIT");
        assertThat(hit.body()).isEqualTo(miss.body()).isEqualTo(SampleOrigin.bytes(100000));
        assertThat(origin.requestCount()).isEqualTo(originRequests);
    }

    @Test
    void noStoreIsNeverCachedAndExpiredEntriesAreFetchedAgain() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(get(h2, "/nostore").headers().firstValue("x-cache")).hasValue("MISS");
            edge.awaitCacheWrites();
        }
        double expired = EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_cache_expired_total");
        double stores = EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_cache_stores_total");
        assertThat(get(h2, "/time").headers().firstValue("x-cache")).hasValue("MISS");
        edge.awaitCacheWrites();
        assertThat(EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_cache_stores_total"))
                .as("/time (max-age=1) is stored; /nostore never was").isEqualTo(stores + 1);
        // Poll until the stored entry is past its one second (how soon depends on this machine, so no HIT is
        // asserted here): the edge must then go to the origin again and count the entry as expired.
        String cache = "HIT";
        for (int i = 0; i < 200 && cache.equals("HIT"); i++) {
            Thread.sleep(50);
            cache = get(h2, "/time").headers().firstValue("x-cache").orElseThrow();
        }
        assertThat(cache).isEqualTo("MISS");
        assertThat(EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_cache_expired_total"))
                .isGreaterThan(expired);
    }

    @Test
    void httpOneClientsAreServedToo() throws Exception {
        HttpClient h1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(suite.trustingDevCa()).build();
        HttpResponse<byte[]> response = get(h1, "/hello");
        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(new String(response.body())).contains("hello from the elastikey sample origin");
    }

    @Test
    void theAdminEndpointExportsHandshakesKeyOperationsAndTheCache() throws Exception {
        get(suite.client(EdgeFixture.RSA_NAME, "TLSv1.2", null), "/hello");
        HttpClient plain = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + edge.adminAddress().getPort();
        String metrics = plain.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).contains("elastikey_edge_handshakes_total{protocol=\"TLSv1.2\",type=\"full\"}",
                "elastikey_edge_key_operation_duration_seconds_bucket", "elastikey_edge_keyserver_duration_seconds_count",
                "elastikey_edge_keyserver_available{endpoint=\"127.0.0.1:" + keyServer.address().getPort() + "\"} 1.0",
                "elastikey_edge_cache_hit_ratio", "elastikey_edge_certificates", "elastikey_edge_connections_open");
        assertThat(EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_key_operations_total{kind=\"sign\",result=\"ok\""))
                .isGreaterThanOrEqualTo(1);
        for (String path : List.of("/healthz", "/readyz")) {
            assertThat(plain.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).as(path).isEqualTo(200);
        }
    }

    @Test
    void aCertificateAddedWhileRunningIsServed() throws Exception {
        String name = "new.edge.test";
        // A new certificate for a key the key server already holds, as when a certificate is renewed or a name
        // added (TestKeys hands out one key pair per type).
        var pair = TestKeys.of(KeyType.EC_P256);
        X509Certificate leaf = suite.pki().ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, name,
                List.of(name, "127.0.0.1"), Validity.days(1));
        Path file = root.resolve("edge/certs/new.pem");
        PemFiles.writeCertificates(file, List.of(leaf, suite.pki().ca().certificate()));

        Tools.Result result = null;
        for (int i = 0; i < 100 && (result == null || !result.output().contains("subject=CN = " + name)); i++) {
            Thread.sleep(50);
            result = Tools.sClient(suite, edge, name, "-tls1_3", null, null, null);
        }
        assertThat(result.output()).contains("subject=CN = " + name, "Verification: OK", "HTTP/1.1 200 OK");
        Files.delete(file);
    }
}
