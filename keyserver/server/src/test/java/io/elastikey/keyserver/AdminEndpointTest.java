package io.elastikey.keyserver;

import static io.elastikey.keyserver.SkiEndToEndTest.base64;
import static io.elastikey.keyserver.SkiEndToEndTest.randomBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.crypto.Cipher;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plain-HTTP admin endpoint of a running key server: health and readiness, a 404 elsewhere, and Prometheus
 * metrics that count what the SKI endpoint really did: requests by method and result, their latency, the crypto
 * provider, the key cache, stored keys and open connections.
 */
class AdminEndpointTest {
    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static TestKey rsa;
    private static TestKey ec;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        List<TestKey> keys = fixture.addKeys(List.of(KeyType.RSA_2048, KeyType.EC_P256), Set.of("test"));
        rsa = keys.get(0);
        ec = keys.get(1);
        fixture.start();
        client = fixture.client(HttpClient.Version.HTTP_2);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void healthzAnswers200() throws Exception {
        HttpResponse<String> response = fixture.admin("/healthz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok\n");
    }

    @Test
    void readyzAnswers200WhileRunning() throws Exception {
        HttpResponse<String> response = fixture.admin("/readyz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ready\n");
    }

    @Test
    void unknownPathAnswers404() throws Exception {
        for (String path : List.of("/", "/metrics/extra", "/admin", "/health")) {
            assertThat(fixture.admin(path).statusCode()).as(path).isEqualTo(404);
        }
    }

    @Test
    void otherMethodsThanGetAnswer405() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                fixture.adminUri("/metrics")).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(405);
    }

    @Test
    void metricsAreInThePrometheusTextFormat() throws Exception {
        HttpResponse<String> response = fixture.admin("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        assertThat(response.body()).contains("# TYPE elastikey_ski_requests_total counter");
    }

    @Test
    void requestsAreCountedByMethodAndResult() throws Exception {
        ScrapedMetrics before = fixture.metrics();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            statuses.add(post(rsaRequest()));
        }
        for (int i = 0; i < 3; i++) {
            statuses.add(post(ecdheRequest(KeyIds.keyId(ec.pair().getPublic()))));
        }
        statuses.add(post("""
                {"method":"SIGN","scheme":"ecdsa_secp256r1_sha256","spki":"%s","input":"AAEC"}"""
                .formatted(KeyIds.keyId(ec.pair().getPublic()))));
        statuses.add(post(ecdheRequest("00".repeat(32))));
        statuses.add(post("""
                {"method":"SIGN","scheme":"rsa_pss_rsae_sha256","spki":"%s","input":"AAEC"}"""
                .formatted(KeyIds.keyId(ec.pair().getPublic()))));
        statuses.add(post("{not json"));
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 200, 404, 400, 400);

        Map<List<String>, Double> expected = Map.of(
                List.of("RSA", "ok"), 2.0,
                List.of("ECDHE", "ok"), 3.0,
                List.of("SIGN", "ok"), 1.0,
                List.of("ECDHE", "spki not found"), 1.0,
                List.of("SIGN", "malformed request"), 1.0,
                List.of("unknown", "malformed request"), 1.0,
                List.of("RSA-RAW", "ok"), 0.0,
                List.of("RSA", "overloaded"), 0.0);
        KeyServerFixture.await("every answer is counted", () -> {
            ScrapedMetrics after = fixture.metrics();
            return expected.entrySet().stream().allMatch(e -> requests(after, e.getKey()) - requests(before,
                    e.getKey()) == e.getValue());
        });
        ScrapedMetrics after = fixture.metrics();
        assertThat(after.value("elastikey_ski_request_duration_seconds_count", "method", "RSA")
                - before.value("elastikey_ski_request_duration_seconds_count", "method", "RSA")).isEqualTo(2.0);
        assertThat(after.find("elastikey_ski_request_duration_seconds_bucket", "method", "ECDHE")).isNotEmpty();
    }

    @Test
    void cryptoProviderIsExported() throws Exception {
        String expected = CryptoProvider.select(ProviderChoice.AUTO).name();

        List<ScrapedMetrics.Sample> providers = fixture.metrics().find("elastikey_crypto_provider");

        assertThat(providers).hasSize(1);
        assertThat(providers.get(0).labels()).containsEntry("name", expected).containsKey("version");
        assertThat(providers.get(0).value()).isEqualTo(1.0);
    }

    @Test
    void p256SignaturesThatFindANonceReadyAreFinishedWithoutAWorkerAndCounted() throws Exception {
        assumeTrue(!fixture.metrics().find("elastikey_crypto_p256_nonces_pooled").isEmpty(),
                "the native P-256 signer is not built here");
        String spki = KeyIds.keyId(ec.pair().getPublic());
        assertThat(post(ecdheRequest(spki))).isEqualTo(200); // the key is in the parsed-key cache from here on
        KeyServerFixture.await("nonces made ahead", () -> fixture.metrics().value(
                "elastikey_crypto_p256_nonces_pooled") >= 8);
        ScrapedMetrics before = fixture.metrics();

        for (int i = 0; i < 5; i++) {
            assertThat(post(ecdheRequest(spki))).isEqualTo(200);
        }

        ScrapedMetrics after = fixture.metrics();
        assertThat(after.value("elastikey_crypto_operations_total", "outcome", "inline")
                - before.value("elastikey_crypto_operations_total", "outcome", "inline")).isEqualTo(5.0);
        assertThat(after.value("elastikey_crypto_p256_nonces_total", "event", "missed"))
                .isEqualTo(before.value("elastikey_crypto_p256_nonces_total", "event", "missed"));
    }

    @Test
    void keyCacheHitRatioRisesWithRepeatedUse() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(post(ecdheRequest(KeyIds.keyId(ec.pair().getPublic())))).isEqualTo(200);
        }

        double ratio = fixture.metrics().value("elastikey_keys_cache_hit_ratio");

        assertThat(ratio).isGreaterThan(0.0).isLessThanOrEqualTo(1.0);
    }

    @Test
    void storedKeysAreCounted() throws Exception {
        ScrapedMetrics metrics = fixture.metrics();

        assertThat(metrics.value("elastikey_keys_stored")).isEqualTo(2.0);
        assertThat(metrics.value("elastikey_store_entries")).isPositive();
    }

    @Test
    void storeMemoryTierBudgetIsExportedBesideItsSize() throws Exception {
        ScrapedMetrics metrics = fixture.metrics();

        // store.memory defaults to 128m; dashboards plot the tier's size against it.
        assertThat(metrics.value("elastikey_store_memory_budget_bytes")).isEqualTo(128.0 * 1024 * 1024);
        assertThat(metrics.value("elastikey_store_memory_bytes"))
                .isLessThanOrEqualTo(metrics.value("elastikey_store_memory_budget_bytes"));
    }

    @Test
    void openConnectionsAreCounted() throws Exception {
        double before = fixture.metrics().value("elastikey_connections_open");
        List<SSLSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                sockets.add(fixture.connect(fixture.tls(fixture.pki().client())));
            }
            KeyServerFixture.await("three more connections are open",
                    () -> fixture.metrics().value("elastikey_connections_open") == before + 3);
        } finally {
            for (SSLSocket socket : sockets) {
                socket.close();
            }
        }
        KeyServerFixture.await("the closed connections are no longer counted",
                () -> fixture.metrics().value("elastikey_connections_open") == before);
    }

    private static double requests(ScrapedMetrics metrics, List<String> methodAndResult) {
        List<ScrapedMetrics.Sample> samples = metrics.find("elastikey_ski_requests_total",
                "method", methodAndResult.get(0), "result", methodAndResult.get(1));
        if (samples.size() != 1) {
            throw new AssertionError("expected one sample for " + methodAndResult + ", found " + samples);
        }
        return samples.get(0).value();
    }

    private static int post(String json) throws Exception {
        return fixture.post(client, json).statusCode();
    }

    private static String ecdheRequest(String spki) {
        return """
                {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"%s"}"""
                .formatted(spki, base64(randomBytes(32)));
    }

    private static String rsaRequest() throws Exception {
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, rsa.pair().getPublic());
        return """
                {"method":"RSA","spki":"%s","input":"%s"}""".formatted(KeyIds.keyId(rsa.pair().getPublic()),
                base64(cipher.doFinal(randomBytes(48))));
    }
}
