// EdgeHostileClientTest -- the edge's HTTP front against clients that misbehave after a good handshake.
package io.elastikey.edge;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The edge shares the key server's protection (issue 15): a client's protocol error is counted in
 * {@code elastikey_edge_protocol_errors_total{kind}} and logged without a stack trace; a request that does not
 * arrive within {@code timeouts.request-read} (1 s here) gets 408 and a close; {@code HTTP/9.9} gets 505.
 */
class EdgeHostileClientTest {
    @TempDir
    static Path root;
    static EdgeFixture suite;
    static EdgeServer edge;
    static SampleOrigin origin;

    @BeforeAll
    static void start() throws Exception {
        suite = EdgeFixture.create(root);
        KeyServer keyServer = suite.startKeyServer(0, 0);
        origin = suite.startOrigin();
        edge = suite.startEdge(List.of(keyServer.address()), origin, Map.of("timeouts.request-read", "1s",
                "limits.answer-backlog", "256k"));
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    @Test
    void garbageInsteadOfTheHttp2PrefaceIsCountedWithoutAStackTrace() throws Exception {
        double before = errors("http2");
        ListAppender<ILoggingEvent> events = captureLogs();
        try (SSLSocket socket = connect("h2")) {
            socket.getOutputStream().write("garbage garbage garbage garbage\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            readUntilClosed(socket);
        } finally {
            release(events);
        }
        await(() -> errors("http2") == before + 1);
        assertThat(events.list).noneMatch(e -> e.getThrowableProxy() != null || e.getLevel().isGreaterOrEqual(Level.WARN));
    }

    @Test
    void aRequestThatNeverFinishesIsAnswered408AndClosed() throws Exception {
        double before = errors("timeout");
        try (SSLSocket socket = connect(null)) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: a".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            assertThat(readUntilClosed(socket)).startsWith("HTTP/1.1 408 ");
        }
        await(() -> errors("timeout") == before + 1);
    }

    @Test
    void anUnknownHttpVersionIsAnswered505() throws Exception {
        try (SSLSocket socket = connect(null)) {
            socket.getOutputStream().write("GET / HTTP/9.9\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            assertThat(readUntilClosed(socket)).startsWith("HTTP/1.1 505 ");
        }
    }

    /**
     * A body over {@code limits.body} (1 MiB by default) declared by a client that asks to close: the edge answers
     * 413 at once and goes on reading, so the client, still sending, reads its answer instead of a reset.
     */
    @Test
    void aBodyOverTheLimitIsAnswered413ToAClientStillSendingIt() throws Exception {
        String answer = exchange("POST /upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n",
                2 << 20, "");

        assertThat(answer).startsWith("HTTP/1.1 413 ").contains("request body too large");
    }

    @Test
    void aBodyOverTheLimitOnAKeptAliveConnectionLeavesItUsable() throws Exception {
        String answers = exchange("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", (1 << 20) + 1,
                "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        assertThat(answers).startsWith("HTTP/1.1 413 ").contains("HTTP/1.1 200 ");
    }

    @Test
    void anUnknownExpectationIsAnswered417() throws Exception {
        String answer = exchange("GET /hello HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n"
                + "Connection: close\r\n\r\n", 0, "");

        assertThat(answer).startsWith("HTTP/1.1 417 ");
    }

    /**
     * RFC 9112 3.2: an HTTP/1.1 request needs exactly one {@code Host}. With two, the edge and the origin could each
     * take another (a cache keyed on one host holding the other's answer); none is refused too. HTTP/1.0 may omit it.
     */
    @Test
    void aRequestWithTwoHostsOrNoneIsAnswered400AndNeverForwarded() throws Exception {
        long originRequests = origin.requestCount();
        assertThat(exchange("GET /hello HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n", 0, ""))
                .startsWith("HTTP/1.1 400 ");
        assertThat(exchange("GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n", 0, "")).startsWith("HTTP/1.1 400 ");
        assertThat(origin.requestCount()).isEqualTo(originRequests);

        assertThat(exchange("GET /nostore HTTP/1.0\r\n\r\n", 0, "")).startsWith("HTTP/1.0 200 ");
    }

    /** A transfer coding the edge cannot undo would reach the origin still applied and no longer labelled. */
    @Test
    void aTransferCodingOtherThanChunkedIsAnswered501AndNeverForwarded() throws Exception {
        long originRequests = origin.requestCount();
        String answer = exchange("POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n"
                + "Connection: close\r\n\r\n0\r\n\r\n", 0, "");

        assertThat(answer).startsWith("HTTP/1.1 501 ").contains("only the chunked transfer coding is served");
        assertThat(origin.requestCount()).isEqualTo(originRequests);
    }

    /**
     * A client that pipelines requests for 1 MB answers and reads nothing: once a connection has more than
     * {@code limits.answer-backlog} (256 KiB here) of answers unsent, the next one is replaced by a 503 that closes
     * it, and the answers behind that are dropped instead of being kept for a client that does not read.
     */
    @Test
    void anHttp1ClientThatDoesNotReadGets503AndIsClosedOnceItsBacklogIsFull() throws Exception {
        double refusedBefore = EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_answers_refused_total");
        try (SSLSocket socket = connect(null)) {
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < 30; i++) {
                requests.append("GET /bytes/1000000 HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            socket.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            await(() -> EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_answers_refused_total")
                    > refusedBefore);

            List<String> statuses = Pattern.compile("HTTP/1\\.1 (\\d{3}) ").matcher(readUntilClosed(socket)).results()
                    .map(m -> m.group(1)).toList();
            assertThat(statuses).hasSizeLessThan(30).endsWith("503").contains("200");
            assertThat(statuses.subList(0, statuses.size() - 1)).containsOnly("200");
        }
    }

    /**
     * Sends {@code head} (with {@code %d} for the body's length), a body of {@code bodyLength} zeros in 64 KiB writes
     * (the answer may be on its way before the last: the edge must not reset us under it), then {@code next}, and
     * reads everything until the edge closes.
     */
    private static String exchange(String head, int bodyLength, String next) throws Exception {
        try (SSLSocket socket = connect(null)) {
            OutputStream out = socket.getOutputStream();
            out.write(String.format(head, bodyLength).getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 << 10];
            for (int left = bodyLength; left > 0; left -= chunk.length) {
                out.write(chunk, 0, Math.min(left, chunk.length));
            }
            out.write(next.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return readUntilClosed(socket);
        }
    }

    private static SSLSocket connect(String protocol) throws Exception {
        SSLSocket socket = (SSLSocket) suite.trustingDevCa().getSocketFactory().createSocket(
                InetAddress.getLoopbackAddress(), edge.address().getPort());
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(EdgeFixture.EC_NAME)));
        if (protocol != null) {
            parameters.setApplicationProtocols(new String[] {protocol});
        }
        socket.setSSLParameters(parameters);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }

    /** Everything the edge sends until it closes; a read timeout (10 s) fails the test. */
    private static String readUntilClosed(SSLSocket socket) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        try {
            for (int b = in.read(); b >= 0; b = in.read()) {
                out.write(b);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("not closed; received: " + out.toString(StandardCharsets.ISO_8859_1), e);
        } catch (IOException e) {
            // closed without close_notify
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    private static double errors(String kind) throws Exception {
        return EdgeFixture.metric(edge.adminAddress(), "elastikey_edge_protocol_errors_total{kind=\"" + kind + "\"");
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting");
            }
            Thread.sleep(50);
        }
    }

    private static ListAppender<ILoggingEvent> captureLogs() {
        Logger rootLogger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        rootLogger.addAppender(events);
        return events;
    }

    private static void release(ListAppender<ILoggingEvent> events) throws InterruptedException {
        Thread.sleep(200); // whatever the edge logs about the connection as it closes
        ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(events);
    }
}
