package io.elastikey.edge;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real clients complete real handshakes through the edge, for RSA and ECDSA certificates, in TLS 1.3, TLS 1.2
 * with ECDHE and TLS 1.2 with RSA key exchange, and the key server's own counters show it did each handshake's
 * private-key operation. The clients are the JDK's HTTP client, curl and {@code openssl s_client}.
 */
class EdgeHandshakeTest {
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
        edge = suite.startEdge(List.of(keyServer.address()), origin, Map.of());
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
    void theJdkClientGetsContentAndTheKeyServerDidTheKeyOperation(String name, String protocol, String cipher,
                                                                 String keyAlgorithm) throws Exception {
        long before = EdgeFixture.keyServerOperations(keyServer.adminAddress());
        HttpClient client = suite.client(name, protocol, cipher);
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(EdgeFixture.uri(edge, "/hello")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("hello");
        var session = response.sslSession().orElseThrow();
        assertThat(session.getProtocol()).isEqualTo(protocol);
        if (cipher != null) {
            assertThat(session.getCipherSuite()).isEqualTo(cipher);
        }
        X509Certificate presented = (X509Certificate) session.getPeerCertificates()[0];
        assertThat(presented).isEqualTo(suite.certificate(name));
        assertThat(presented.getPublicKey().getAlgorithm()).isEqualTo(keyAlgorithm);
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress())).isEqualTo(before + 1);
    }

    @ParameterizedTest(name = "curl {0} {1}")
    @CsvSource({
            "ec.edge.test,  --tlsv1.3, ",
            "rsa.edge.test, --tlsv1.3, ",
            "ec.edge.test,  --tls-max, ECDHE-ECDSA-AES128-GCM-SHA256",
            "rsa.edge.test, --tls-max, ECDHE-RSA-AES128-GCM-SHA256",
            "rsa.edge.test, --tls-max, AES128-GCM-SHA256",
    })
    void curlGetsContentOverHttp2(String name, String version, String cipher) throws Exception {
        long before = EdgeFixture.keyServerOperations(keyServer.adminAddress());
        int port = edge.address().getPort();
        List<String> command = new java.util.ArrayList<>(List.of("curl", "-sS", "-v", "--http2", "--max-time", "20",
                "--cacert", suite.pki().directory().resolve("ca.pem").toString(),
                "--resolve", name + ":" + port + ":127.0.0.1"));
        if (cipher == null) {
            command.add(version);
        } else {
            command.addAll(List.of("--tlsv1.2", "--tls-max", "1.2", "--ciphers", cipher));
        }
        command.add("https://" + name + ":" + port + "/hello");
        Tools.Result result = Tools.run(command);

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).contains("hello from the elastikey sample origin")
                .contains("< HTTP/2 200")
                .contains(cipher == null ? "SSL connection using TLSv1.3" : "SSL connection using TLSv1.2 / " + cipher);
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress())).isEqualTo(before + 1);
    }

    @ParameterizedTest(name = "openssl {0} {1} {2}")
    @CsvSource({
            "ec.edge.test,  -tls1_3, ",
            "rsa.edge.test, -tls1_3, ",
            "ec.edge.test,  -tls1_2, ECDHE-ECDSA-AES256-GCM-SHA384",
            "rsa.edge.test, -tls1_2, ECDHE-RSA-AES256-GCM-SHA384",
            "rsa.edge.test, -tls1_2, AES256-GCM-SHA384",
    })
    void opensslSClientCompletesTheHandshakeAndGetsContent(String name, String version, String cipher)
            throws Exception {
        long before = EdgeFixture.keyServerOperations(keyServer.adminAddress());
        Tools.Result result = Tools.sClient(suite, edge, name, version, cipher, null, null);

        assertThat(result.output()).contains("Verification: OK", "HTTP/1.1 200 OK",
                "hello from the elastikey sample origin", "subject=CN = " + name);
        assertThat(result.output()).contains(cipher == null ? "New, TLSv1.3" : "New, TLSv1.2, Cipher is " + cipher);
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress())).isEqualTo(before + 1);
    }

    @Test
    void aClientWithoutSniGetsTheDefaultCertificate() throws Exception {
        Tools.Result result = Tools.sClient(suite, edge, null, "-tls1_3", null, null, null);
        assertThat(result.output()).contains("subject=CN = " + EdgeFixture.EC_NAME, "HTTP/1.1 200 OK");
    }

    @Test
    void theEdgeHoldsNoPrivateKeyFile() throws Exception {
        try (var files = java.nio.file.Files.walk(root.resolve("edge"))) {
            for (Path file : files.filter(java.nio.file.Files::isRegularFile).toList()) {
                if (file.toString().endsWith(".pem")) {
                    assertThat(java.nio.file.Files.readString(file)).doesNotContain("PRIVATE KEY");
                }
            }
        }
    }
}
