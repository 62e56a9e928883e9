package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection-level limits: {@code limits.connections}, {@code timeouts.idle} and
 * {@code timeouts.handshake}. Each waits for the server to act, up to 10 s; none asserts how
 * quickly it did.
 */
class LimitsTest {
    @TempDir
    Path dir;

    @Test
    void connectionsBeyondTheLimitAreClosedBeforeTheirHandshake() throws Exception {
        try (KeyServerFixture fixture = KeyServerFixture.create(dir, Map.of("limits.connections", "2")).start()) {
            SSLContext tls = fixture.tls(fixture.pki().client());
            List<SSLSocket> open = new ArrayList<>();
            try {
                open.add(fixture.connect(tls));
                open.add(fixture.connect(tls));
                double refusedBefore = fixture.metrics().value("elastikey_connections_refused_total");
                try (Socket third = new Socket(InetAddress.getLoopbackAddress(), fixture.server().address().getPort())) {
                    assertThat(closedByServer(third)).as("third connection closed").isTrue();
                }
                assertThat(fixture.metrics().value("elastikey_connections_refused_total")).isEqualTo(refusedBefore + 1);
            } finally {
                for (SSLSocket socket : open) {
                    socket.close();
                }
            }
            // Closing frees the places: a new connection is served again.
            waitUntil(() -> fixture.metrics().value("elastikey_connections_open") == 0);
            try (SSLSocket again = fixture.connect(tls)) {
                RawHttp.write(again, RawHttp.post("{}"));
                assertThat(RawHttp.readAnswer(again).status()).isEqualTo(400);
            }
        }
    }

    @Test
    void anIdleConnectionIsClosed() throws Exception {
        try (KeyServerFixture fixture = KeyServerFixture.create(dir, Map.of("timeouts.idle", "300ms")).start();
             SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            assertThat(closedByServer(socket)).isTrue();
        }
    }

    @Test
    void aClientThatNeverCompletesItsHandshakeIsClosedAndCounted() throws Exception {
        try (KeyServerFixture fixture = KeyServerFixture.create(dir, Map.of("timeouts.handshake", "300ms")).start()) {
            double before = fixture.metrics().value("elastikey_tls_handshake_failures_total");
            try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), fixture.server().address().getPort())) {
                assertThat(closedByServer(silent)).isTrue();
            }
            waitUntil(() -> fixture.metrics().value("elastikey_tls_handshake_failures_total") == before + 1);
            assertThat(fixture.metrics().value("elastikey_tls_handshake_failures_total")).isEqualTo(before + 1);
        }
    }

    /** Reads until the server closes the connection (end of stream or reset), for up to 10 s. */
    private static boolean closedByServer(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        try {
            while (in.read() >= 0) {
                // discard whatever arrives (a TLS alert, say) until the end
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the server, or a TLS close without close_notify
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitUntil(Condition condition) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.holds() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
