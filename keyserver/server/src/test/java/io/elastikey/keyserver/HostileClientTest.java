// HostileClientTest -- clients that complete a handshake and then misbehave: one log line, counted, closed.
package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real key server against clients holding a valid certificate that then send garbage or trickle their requests
 * (issue 15): every protocol error is at most one log line without stack trace or hex dump, counted by kind in
 * {@code elastikey_protocol_errors_total}; a request that does not arrive within {@code timeouts.request-read}
 * (1 s here) is answered 408 and closed; a version other than HTTP/1.x gets 505 and an over-long request line 414.
 * Waits are for the server to act (10 s at most); nothing is asserted about how quickly it did.
 */
class HostileClientTest {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY_SETTINGS = frame(0x4, 0, 0, new byte[0]);

    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static SSLContext tls;

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of("timeouts.request-read", "1s")).start();
        tls = fixture.tls(fixture.pki().client());
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"not a preface", "DATA on stream 0", "undecodable header block", "oversized frame",
            "window update of zero", "settings of odd length"})
    void garbageHttp2FramesAfterAGoodHandshakeAreOneCountedLine(String garbage) throws Exception {
        byte[] bytes = switch (garbage) {
            case "not a preface" -> "GET / HTTP/1.1\r\nHost: x\r\n\r\n\u0000\u00ff garbage garbage garbage"
                    .getBytes(StandardCharsets.ISO_8859_1);
            case "DATA on stream 0" -> concat(PREFACE, EMPTY_SETTINGS, frame(0x0, 0, 0, new byte[] {1, 2, 3, 4}));
            case "undecodable header block" -> concat(PREFACE, EMPTY_SETTINGS,
                    frame(0x1, 0x5, 1, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}));
            case "oversized frame" -> concat(PREFACE, EMPTY_SETTINGS,
                    new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0, 0, 1, 9, 9, 9});
            case "window update of zero" -> concat(PREFACE, EMPTY_SETTINGS, frame(0x8, 0, 0, new byte[4]));
            default -> concat(PREFACE, frame(0x4, 0, 0, new byte[] {0, 1, 0}));
        };
        assertOneQuietLineCounted("http2", () -> {
            try (SSLSocket socket = connect("h2")) {
                socket.getOutputStream().write(bytes);
                socket.getOutputStream().flush();
                assertThat(closedByServer(socket)).as("closed").isTrue();
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "http/1.1"})
    void bytesThatAreNotTlsRecordsAfterTheHandshakeAreOneCountedLine(String protocol) throws Exception {
        assertOneQuietLineCounted("tls", () -> {
            try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), fixture.server().address().getPort());
                 SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1",
                         plain.getPort(), false)) {
                alpn(socket, protocol);
                socket.startHandshake();
                // Something encrypted first (TLS 1.3: the server has then seen our Finished): h2's preface, or an
                // HTTP/1.1 request and its answer.
                if (protocol.equals("h2")) {
                    socket.getOutputStream().write(PREFACE);
                    socket.getOutputStream().flush();
                } else {
                    RawHttp.write(socket, RawHttp.post("{}"));
                    assertThat(RawHttp.readAnswer(socket).status()).isEqualTo(400);
                }
                OutputStream raw = plain.getOutputStream();
                byte[] junk = new byte[300];
                Arrays.fill(junk, (byte) 0x41);
                raw.write(junk);
                raw.flush();
                assertThat(closedByServer(plain)).as("closed").isTrue();
            }
        });
    }

    /**
     * A client that pipelines requests and never reads the answers (a compromised edge, say): once its answers are
     * over the connection's write buffer, the key server stops reading its requests instead of answering every one
     * into memory, and the client's writes are held back. 500,000 requests for a key that does not exist: without
     * the hold the server answered all of them, keeping the answers for a client that never took them.
     */
    @Test
    void aClientThatDoesNotReadItsAnswersIsNotReadFromEither() throws Exception {
        byte[] request = RawHttp.post("{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"" + "00".repeat(20)
                + "\",\"input\":\"AAECAw==\"}").getBytes(StandardCharsets.US_ASCII);
        int sent = 500_000;
        double before = fixture.metrics().value("elastikey_ski_requests_total");
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), fixture.server().address().getPort());
             SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", plain.getPort(),
                     false)) {
            socket.startHandshake();
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    for (int i = 0; i < sent; i++) {
                        out.write(request);
                    }
                    out.flush();
                } catch (IOException closed) {
                    // the test closed the socket under a blocked write
                }
            }, "client-that-does-not-read");
            writer.setDaemon(true);
            writer.start();
            double answered;
            double now = fixture.metrics().value("elastikey_ski_requests_total");
            do { // until the server stops answering: held back, or done with every request
                answered = now;
                Thread.sleep(1000);
                now = fixture.metrics().value("elastikey_ski_requests_total");
            } while (now != answered);

            assertThat(answered - before).isLessThan(sent / 2.0);
            assertThat(writer.isAlive()).as("the client's writes are held back").isTrue();
            plain.close(); // under the blocked writer; closing TLS first would wait for it to send close_notify
        }
    }

    @Test
    void unparsableHttp1IsAnswered400AndCountedWithoutAStackTrace() throws Exception {
        assertOneQuietLineCounted("http1", () -> {
            try (SSLSocket socket = connect(null)) {
                RawHttp.write(socket, "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n");
                assertThat(RawHttp.readUntilClosed(socket).status()).isEqualTo(400);
            }
        });
    }

    @Test
    void aRequestHeadTricklingInIsAnswered408AndClosed() throws Exception {
        assertOneQuietLineCounted("timeout", () -> {
            try (SSLSocket socket = connect(null)) {
                RawHttp.write(socket, "POST / HTTP/1.1\r\n");
                // One header byte every 100 ms: never idle, never done, until the server gives up.
                OutputStream out = socket.getOutputStream();
                try {
                    for (int i = 0; i < 100; i++) {
                        out.write('X');
                        out.flush();
                        Thread.sleep(100);
                    }
                } catch (IOException closed) {
                    // the server closed while we were still writing
                }
                RawHttp.Answer answer = RawHttp.readUntilClosed(socket);
                assertThat(answer.status()).isEqualTo(408);
                assertThat(answer.header("Connection")).isEqualToIgnoringCase("close");
            }
        });
    }

    @Test
    void aHeadWithADeclaredBodyThatNeverComesIsAnswered408AndClosed() throws Exception {
        assertOneQuietLineCounted("timeout", () -> {
            try (SSLSocket socket = connect(null)) {
                RawHttp.write(socket, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 100\r\n\r\n");
                RawHttp.Answer answer = RawHttp.readUntilClosed(socket);
                assertThat(answer.status()).isEqualTo(408);
                assertThat(answer.body()).isEqualTo("{\"error\":\"malformed request\"}");
            }
        });
    }

    @Test
    void anHttp2StreamWhoseBodyNeverComesIsAnswered408AndReset() throws Exception {
        assertOneQuietLineCounted("timeout", () -> {
            try (SSLSocket socket = connect("h2")) {
                ByteBuf block = Unpooled.buffer();
                new DefaultHttp2HeadersEncoder().encodeHeaders(1, new DefaultHttp2Headers().method("POST")
                        .scheme("https").path("/").authority("127.0.0.1").add("content-type", "application/json"),
                        block);
                byte[] headers = new byte[block.readableBytes()];
                block.readBytes(headers);
                // HEADERS with END_HEADERS and without END_STREAM: a body is to follow, and never does.
                socket.getOutputStream().write(concat(PREFACE, EMPTY_SETTINGS, frame(0x1, 0x4, 1, headers)));
                socket.getOutputStream().flush();

                Frame answer = nextFrameOf(socket, 1);
                assertThat(answer.type()).as("HEADERS").isEqualTo(0x1);
                Http2Headers decoded = new DefaultHttp2HeadersDecoder(false).decodeHeaders(1,
                        Unpooled.wrappedBuffer(answer.payload()));
                assertThat(decoded.status().toString()).isEqualTo("408");
                boolean reset = false;
                for (Frame next = nextFrameOf(socket, 1); next != null; next = nextFrameOf(socket, 1)) {
                    reset |= next.type() == 0x3;
                    if (reset) {
                        break;
                    }
                }
                assertThat(reset).as("RST_STREAM").isTrue();
                // The connection serves on: a PING is answered.
                socket.getOutputStream().write(frame(0x6, 0, 0, new byte[8]));
                socket.getOutputStream().flush();
                assertThat(nextFrameOf(socket, 0).type()).as("PING ack").isEqualTo(0x6);
            }
        });
    }

    /** A frame as read from the wire. */
    private record Frame(int type, int flags, int stream, byte[] payload) {
    }

    /** The next frame on {@code stream} (others are skipped); {@code null} at the end of the connection. */
    private static Frame nextFrameOf(SSLSocket socket, int stream) throws IOException {
        InputStream in = socket.getInputStream();
        while (true) {
            byte[] header = in.readNBytes(9);
            if (header.length < 9) {
                return null;
            }
            int length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
            int id = ByteBuffer.wrap(header, 5, 4).getInt() & 0x7fffffff;
            byte[] payload = in.readNBytes(length);
            if (id == stream && !(stream == 0 && header[3] == 0x4)) {
                return new Frame(header[3] & 0xff, header[4] & 0xff, id, payload);
            }
        }
    }

    @Test
    void anHttp2FrameLeftUnfinishedClosesTheConnection() throws Exception {
        assertOneQuietLineCounted("timeout", () -> {
            try (SSLSocket socket = connect("h2")) {
                socket.getOutputStream().write(concat(PREFACE, EMPTY_SETTINGS, new byte[] {0, 0, 8, 6, 0}));
                socket.getOutputStream().flush();
                assertThat(closedByServer(socket)).as("closed").isTrue();
            }
        });
    }

    @Test
    void anUnknownHttpVersionIsAnswered505() throws Exception {
        try (SSLSocket socket = connect(null)) {
            RawHttp.write(socket, "POST / HTTP/9.9\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
            RawHttp.Answer answer = RawHttp.readUntilClosed(socket);
            assertThat(answer.statusLine()).startsWith("HTTP/1.1 505");
        }
    }

    @Test
    void anOverlongPathIsAnswered414AndOverlongHeadersStay431() throws Exception {
        try (SSLSocket socket = connect(null)) {
            RawHttp.write(socket, "POST /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
            assertThat(RawHttp.readUntilClosed(socket).status()).isEqualTo(414);
        }
        try (SSLSocket socket = connect(null)) {
            RawHttp.write(socket, "POST / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(9000)
                    + "\r\nContent-Length: 2\r\n\r\n{}");
            assertThat(RawHttp.readUntilClosed(socket).status()).isEqualTo(431);
        }
        HttpResponse<String> h2 = fixture.send(fixture.client(HttpClient.Version.HTTP_2),
                fixture.request("/" + "a".repeat(5000)).POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(h2.statusCode()).isEqualTo(414);
    }

    private interface Exchange {
        void run() throws Exception;
    }

    /**
     * Runs {@code exchange} on a new connection and checks what the server did about it: {@code kind} counted once,
     * and at most one log line, with no stack trace, no hex dump and no WARN.
     */
    private static void assertOneQuietLineCounted(String kind, Exchange exchange) throws Exception {
        double before = protocolErrors(kind);
        String log;
        try (LogCapture logs = LogCapture.asConfigured()) {
            exchange.run();
            try {
                KeyServerFixture.await(kind + " counted", () -> protocolErrors(kind) > before);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; counted: " + fixture.metrics().find(
                        "elastikey_protocol_errors_total") + "; log: " + logs.text(), e);
            }
            Thread.sleep(200); // anything else the server would log about the connection
            log = logs.text();
        }
        assertThat(protocolErrors(kind)).as(kind + " errors counted").isEqualTo(before + 1);
        List<String> lines = log.lines().filter(line -> !line.contains("elastikey.audit")).toList();
        assertThat(lines).as("log lines").hasSizeLessThanOrEqualTo(1);
        assertThat(log).doesNotContain("\tat ").doesNotContainIgnoringCase("hex dump").doesNotContain(" WARN ")
                .doesNotContain(" ERROR ");
        if (!lines.isEmpty()) {
            assertThat(lines.get(0)).contains(kind + " protocol error from /127.0.0.1:");
        }
    }

    private static double protocolErrors(String kind) throws Exception {
        return fixture.metrics().value("elastikey_protocol_errors_total", "kind", kind);
    }

    /** A TLS connection with the handshake done, offering {@code protocol} by ALPN (none when null). */
    private static SSLSocket connect(String protocol) throws IOException {
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                fixture.server().address().getPort());
        alpn(socket, protocol);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }

    private static void alpn(SSLSocket socket, String protocol) {
        if (protocol != null) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {protocol});
            socket.setSSLParameters(parameters);
        }
    }

    /** Reads until the server closes (end of stream, reset or a TLS close), up to 10 s. */
    private static boolean closedByServer(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream ignored = new ByteArrayOutputStream();
        try {
            for (int b = in.read(); b >= 0; b = in.read()) {
                ignored.write(b);
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        ByteBuffer frame = ByteBuffer.allocate(9 + payload.length);
        frame.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length);
        frame.put((byte) type).put((byte) flags).putInt(stream).put(payload);
        return frame.array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
