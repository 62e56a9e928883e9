package io.elastikey.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;

import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The edge with {@code keyservers.protocol = keyless}: real handshakes whose private-key operation the key server
 * did over its Keyless endpoint (its Keyless counter moves, its SKI counter does not), and the same failover as
 * with SKI when one of two key servers is gone.
 */
class EdgeKeylessTest {
    @TempDir
    static Path root;
    static EdgeFixture suite;
    static KeyServer keyServer;
    static SampleOrigin origin;
    static EdgeServer edge;

    @BeforeAll
    static void start() throws Exception {
        suite = EdgeFixture.create(root);
        keyServer = suite.startKeyServer(0, 0);
        origin = suite.startOrigin();
        edge = suite.startEdge(List.of(keyServer.keylessAddress()), origin, Map.of("keyservers.protocol", "keyless"));
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
            "ec.edge.test,  TLSv1.3, ,                                        EC",
            "rsa.edge.test, TLSv1.3, ,                                        RSA",
            "ec.edge.test,  TLSv1.2, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, EC",
            "rsa.edge.test, TLSv1.2, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,   RSA",
            "rsa.edge.test, TLSv1.2, TLS_RSA_WITH_AES_128_GCM_SHA256,         RSA",
    })
    void handshakesThroughTheEdgeUseTheKeylessEndpoint(String name, String protocol, String cipher,
                                                      String keyAlgorithm) throws Exception {
        InetSocketAddress admin = keyServer.adminAddress();
        long keylessBefore = EdgeFixture.keyServerOperations(admin, "keyless");
        long skiBefore = EdgeFixture.keyServerOperations(admin, "ski");
        HttpClient client = suite.client(name, protocol, cipher);
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(EdgeFixture.uri(edge, "/hello")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("hello");
        var session = response.sslSession().orElseThrow();
        assertThat(session.getProtocol()).isEqualTo(protocol);
        X509Certificate presented = (X509Certificate) session.getPeerCertificates()[0];
        assertThat(presented.getPublicKey().getAlgorithm()).isEqualTo(keyAlgorithm);
        assertThat(EdgeFixture.keyServerOperations(admin, "keyless")).isEqualTo(keylessBefore + 1);
        assertThat(EdgeFixture.keyServerOperations(admin, "ski")).isEqualTo(skiBefore);
    }

    @Test
    void aSecondEdgeFailsOverToTheLiveKeyServer() throws Exception {
        KeyServer second = suite.startKeyServer(1, 0);
        InetSocketAddress gone = second.keylessAddress();
        second.close();
        EdgeServer failover = suite.startEdge(List.of(gone, keyServer.keylessAddress()), origin,
                Map.of("keyservers.protocol", "keyless", "cache.enabled", "false"));
        long before = EdgeFixture.keyServerOperations(keyServer.adminAddress(), "keyless");
        for (int i = 0; i < 4; i++) {
            HttpClient client = suite.client("ec.edge.test", "TLSv1.3", null);
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(EdgeFixture.uri(failover, "/hello"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
        }
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress(), "keyless")).isEqualTo(before + 4);
    }
}
