package io.elastikey.edge;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the edge does when key servers fail: with none answering, a handshake fails with a TLS alert (no hang);
 * when one comes back, handshakes work again; with two, SIGKILL of one during a run costs no request.
 */
@Timeout(180) // a guard against a hang, not a timing check
class KeyServerFailureTest {
    @TempDir
    Path root;
    EdgeFixture suite;

    @AfterEach
    void stop() {
        suite.close();
    }

    @Test
    void withNoKeyServerTheHandshakeFailsWithAnAlertAndRecoversWhenOneReturns() throws Exception {
        suite = EdgeFixture.create(root);
        KeyServer keyServer = suite.startKeyServer(0, 0);
        int port = keyServer.address().getPort();
        SampleOrigin origin = suite.startOrigin();
        EdgeServer edge = suite.startEdge(List.of(keyServer.address()), origin,
                Map.of("keyservers.health-interval", "200ms", "keyservers.breaker.open", "200ms"));
        assertThat(get(edge, EdgeFixture.EC_NAME).statusCode()).isEqualTo(200);

        keyServer.close();
        for (String name : List.of(EdgeFixture.EC_NAME, EdgeFixture.RSA_NAME)) {
            assertThatThrownBy(() -> get(edge, name)).isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(rootCause(e)).isInstanceOf(SSLException.class)
                            .hasMessageContaining("internal_error"));
        }
        Tools.Result tls13 = Tools.sClient(suite, edge, EdgeFixture.EC_NAME, "-tls1_3", null, null, null);
        assertThat(tls13.output()).contains("alert internal error").doesNotContain("HTTP/1.1 200");
        Tools.Result rsaKeyExchange = Tools.sClient(suite, edge, EdgeFixture.RSA_NAME, "-tls1_2", "AES128-GCM-SHA256",
                null, null);
        assertThat(rsaKeyExchange.output()).contains("alert internal error").doesNotContain("HTTP/1.1 200");
        assertThat(EdgeFixture.metric(edge.adminAddress(),
                "elastikey_edge_handshake_failures_total{reason=\"key_server\"")).isGreaterThanOrEqualTo(4);
        // Health probes open the breaker soon after (five failures in a row): the edge stops saying it is ready.
        awaitReadiness(edge, 503);

        KeyServer back = suite.startKeyServer(0, port);
        assertThat(back.address().getPort()).isEqualTo(port);
        awaitReadiness(edge, 200);
        assertThat(get(edge, EdgeFixture.EC_NAME).statusCode()).isEqualTo(200);
        assertThat(get(edge, EdgeFixture.RSA_NAME).statusCode()).isEqualTo(200);
    }

    @Test
    void killingOneOfTwoKeyServersDuringARunCostsNoRequest() throws Exception {
        suite = EdgeFixture.create(root);
        KeyServerProcess first = suite.startKeyServerProcess(0);
        KeyServerProcess second = suite.startKeyServerProcess(1);
        SampleOrigin origin = suite.startOrigin();
        // Budgets far above any answer time, so what is tested is the failover (a connection to the killed server
        // fails, the operation moves to the other) and not how fast a loaded machine answers.
        EdgeServer edge = suite.startEdge(List.of(first.address(), second.address()), origin,
                Map.of("keyservers.timeout", "10s", "keyservers.deadline", "30s"));

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger succeeded = new AtomicInteger();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<?>> loops = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            String name = c % 2 == 0 ? EdgeFixture.EC_NAME : EdgeFixture.RSA_NAME;
            loops.add(clients.submit(() -> {
                while (running.get()) {
                    try {
                        // A new client per request: every request is a new connection and a full handshake.
                        HttpResponse<String> r = get(edge, name);
                        if (r.statusCode() == 200) {
                            succeeded.incrementAndGet();
                        } else {
                            failures.add("status " + r.statusCode());
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
                return null;
            }));
        }
        awaitSuccesses(succeeded, 40);
        long firstOps = EdgeFixture.keyServerOperations(first.adminAddress());
        long secondOps = EdgeFixture.keyServerOperations(second.adminAddress());
        assertThat(firstOps + secondOps).isGreaterThan(0);

        first.kill();
        int atKill = succeeded.get();
        awaitSuccesses(succeeded, atKill + 80);
        running.set(false);
        for (Future<?> loop : loops) {
            loop.get(60, TimeUnit.SECONDS);
        }
        clients.shutdown();

        assertThat(failures).isEmpty();
        assertThat(EdgeFixture.keyServerOperations(second.adminAddress())).isGreaterThan(secondOps);
        assertThat(edge.metrics().handshakes(false)).isGreaterThanOrEqualTo(succeeded.get());
    }

    private HttpResponse<String> get(EdgeServer edge, String name) throws Exception {
        HttpClient client = suite.client(name, "TLSv1.3", null);
        return client.send(HttpRequest.newBuilder(EdgeFixture.uri(edge, "/hello")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    private static int readyStatus(EdgeServer edge) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                + edge.adminAddress().getPort() + "/readyz")).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static void awaitReadiness(EdgeServer edge, int status) throws Exception {
        for (int i = 0; i < 300 && readyStatus(edge) != status; i++) {
            Thread.sleep(100);
        }
        assertThat(readyStatus(edge)).isEqualTo(status);
    }

    private static void awaitSuccesses(AtomicInteger succeeded, int count) throws InterruptedException {
        for (int i = 0; i < 1200 && succeeded.get() < count; i++) {
            Thread.sleep(50);
        }
        assertThat(succeeded.get()).isGreaterThanOrEqualTo(count);
    }
}
