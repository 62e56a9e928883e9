package io.elastikey.edge;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.edge.warmup.HandshakeWarmup;
import io.elastikey.keyserver.KeyServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start's handshakes with itself ({@code warmup.handshakes}): they run through the real pipeline and the key
 * server before the edge listens, cover every kind of key operation its certificates need, are not counted as the
 * clients' handshakes, and a warm-up that cannot reach a key server gives up instead of holding the start.
 */
class EdgeWarmupTest {
    @TempDir
    Path root;
    EdgeFixture suite;

    @AfterEach
    void stop() {
        suite.close();
    }

    @Test
    void theStartShakesHandsWithItselfThroughTheKeyServerBeforeItListens() throws Exception {
        suite = EdgeFixture.create(root);
        KeyServer keyServer = suite.startKeyServer(0, 0);
        SampleOrigin origin = suite.startOrigin();
        long before = EdgeFixture.keyServerOperations(keyServer.adminAddress());

        EdgeServer edge = suite.startEdge(List.of(keyServer.address()), origin, Map.of("warmup.handshakes", "2s"));

        HandshakeWarmup.Outcome warmup = edge.warmup();
        assertThat(warmup.handshakes()).as(warmup.toString()).isGreaterThanOrEqualTo(5);
        assertThat(warmup.failures()).as(warmup.toString()).isZero();
        assertThat(EdgeFixture.keyServerOperations(keyServer.adminAddress()) - before)
                .as("each full handshake asked the key server for its key operation")
                .isGreaterThanOrEqualTo(warmup.handshakes());
        assertThat(methodsAnswered(keyServer.adminAddress()))
                .as("signatures, and the RSA decryption of RSA key exchange")
                .containsExactlyInAnyOrder("SIGN", "RSA-RAW");
        assertThat(edge.metrics().handshakes(false)).as("the warm-up's are not the clients' handshakes").isZero();

        HttpResponse<String> response = suite.client(EdgeFixture.EC_NAME, "TLSv1.3", null).send(
                HttpRequest.newBuilder(EdgeFixture.uri(edge, "/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(edge.metrics().handshakes(false)).isEqualTo(1);
    }

    @Test
    void aWarmUpThatReachesNoKeyServerGivesUpInsteadOfHoldingTheStart() throws Exception {
        suite = EdgeFixture.create(root);
        SampleOrigin origin = suite.startOrigin();
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        EdgeServer edge = suite.startEdge(List.of(new InetSocketAddress("127.0.0.1", closedPort)), origin,
                Map.of("warmup.handshakes", "10m"));

        HandshakeWarmup.Outcome warmup = edge.warmup();
        assertThat(warmup.handshakes()).isZero();
        assertThat(warmup.failures()).isGreaterThanOrEqualTo(32);
        assertThat(warmup.ending()).contains("32 failures in a row");
        assertThat(edge.address().getPort()).as("the edge listens all the same").isPositive();
    }

    /** The SKI methods the key server answered with {@code result="ok"}. */
    private static Set<String> methodsAnswered(InetSocketAddress admin) throws Exception {
        String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Set<String> methods = new TreeSet<>();
        text.lines().filter(l -> l.startsWith("elastikey_ski_requests_total{") && l.contains("result=\"ok\""))
                .filter(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) > 0)
                .forEach(l -> {
                    int at = l.indexOf("method=\"") + 8;
                    methods.add(l.substring(at, l.indexOf('"', at)));
                });
        return methods;
    }
}
