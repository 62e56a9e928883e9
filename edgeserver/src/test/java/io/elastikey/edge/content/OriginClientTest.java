package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.protocol.net.Transports;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Leaks.class)
class OriginClientTest {
    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.7", 5555);
    private static EventLoopGroup group;
    private static EventLoop loop;
    private SampleOrigin origin;
    private OriginClient client;

    @BeforeAll
    static void startLoop() {
        group = Transports.newGroup(1, true, "origin-client-test");
        loop = group.next();
    }

    @AfterAll
    static void stopLoop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void startOrigin() {
        origin = SampleOrigin.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = new OriginClient(origin.address(), OriginOptions.defaults());
    }

    @AfterEach
    void stopOrigin() {
        client.close();
        origin.close();
    }

    private CompletableFuture<FullHttpResponse> send(OriginClient c, HttpMethod method, String uri, String body,
                                                     String... headers) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.copiedBuffer(body, UTF_8));
        for (int i = 0; i < headers.length; i += 2) {
            request.headers().add(headers[i], headers[i + 1]);
        }
        try {
            return c.fetch(request, CLIENT, loop);
        } finally {
            request.release(); // the client keeps its own view of the body
        }
    }

    /** The answer's status and body; releases it. */
    private static String answer(CompletableFuture<FullHttpResponse> future) throws Exception {
        FullHttpResponse r = future.get(20, TimeUnit.SECONDS);
        try {
            return r.status().code() + " " + r.content().toString(UTF_8);
        } finally {
            r.release();
        }
    }

    private static int failureStatus(CompletableFuture<FullHttpResponse> future) {
        try {
            future.get(20, TimeUnit.SECONDS).release();
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(OriginException.class);
            return ((OriginException) e.getCause()).status();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void forwardsTheBodyAndSetsTheProxyHeaders() throws Exception {
        String echo = answer(send(client, HttpMethod.POST, "/echo", "ping", "host", "site.example",
                "connection", "x-secret, keep-alive", "x-secret", "1", "te", "trailers", "x-forwarded-for", "6.6.6.6",
                "proxy-authorization", "Basic eDp5", "x-http2-scheme", "https"));
        assertThat(echo).startsWith("200 POST /echo\n")
                .contains("host: site.example\n", "x-forwarded-for: 192.0.2.7\n", "x-forwarded-proto: https\n",
                        "via: 1.1 elastikey-edge\n", "connection: -\n", "te: -\n")
                .endsWith("\n\nping");
    }

    @Test
    void aMissingHostBecomesTheOrigins() throws Exception {
        String echo = answer(send(client, HttpMethod.GET, "http://ignored.example/echo?x=1", ""));
        assertThat(echo).startsWith("200 GET /echo?x=1\n")
                .contains("host: " + origin.address().getHostString() + ":" + origin.address().getPort() + "\n");
    }

    @Test
    void sequentialRequestsShareOneConnection() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(answer(send(client, HttpMethod.GET, "/hello", ""))).startsWith("200 hello");
        }
        assertThat(origin.connectionCount()).isEqualTo(1);
        assertThat(origin.requestCount()).isEqualTo(5);
    }

    @Test
    void aConnectionTheOriginClosesIsNotReused() throws Exception {
        assertThat(answer(send(client, HttpMethod.GET, "/close", ""))).isEqualTo("200 closing\n");
        assertThat(answer(send(client, HttpMethod.GET, "/close", ""))).isEqualTo("200 closing\n");
        assertThat(origin.connectionCount()).isEqualTo(2);
    }

    @Test
    void aPooledConnectionTheOriginDroppedIsReplaced() throws Exception {
        assertThat(answer(send(client, HttpMethod.GET, "/hello", ""))).startsWith("200 ");
        origin.dropConnections();
        assertThat(answer(send(client, HttpMethod.GET, "/hello", ""))).startsWith("200 ");
        assertThat(origin.connectionCount()).isEqualTo(2);
    }

    @Test
    void headHasNoBody() throws Exception {
        FullHttpResponse r = send(client, HttpMethod.HEAD, "/hello", "").get(20, TimeUnit.SECONDS);
        assertThat(r.status().code()).isEqualTo(200);
        assertThat(r.content().readableBytes()).isZero();
        assertThat(r.headers().getInt("content-length")).isEqualTo("hello from the elastikey sample origin\n".length());
        r.release();
    }

    @Test
    void largeBodiesArriveWhole() throws Exception {
        FullHttpResponse r = send(client, HttpMethod.GET, "/bytes/1000000", "").get(20, TimeUnit.SECONDS);
        assertThat(ByteBufUtil.getBytes(r.content())).isEqualTo(SampleOrigin.bytes(1_000_000));
        r.release();
    }

    @Test
    void anOriginThatRefusesIs502() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (OriginClient down = new OriginClient(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                OriginOptions.defaults())) {
            assertThat(failureStatus(send(down, HttpMethod.GET, "/hello", ""))).isEqualTo(502);
        }
    }

    @Test
    void aSlowOriginIs504() {
        try (OriginClient impatient = new OriginClient(origin.address(),
                OriginOptions.builder().responseTimeout(Duration.ofMillis(300)).build())) {
            assertThat(failureStatus(send(impatient, HttpMethod.GET, "/slow?ms=5000", ""))).isEqualTo(504);
        }
    }

    @Test
    void anOversizedAnswerIs502AndThePoolRecovers() throws Exception {
        try (OriginClient small = new OriginClient(origin.address(),
                OriginOptions.builder().maxResponseBytes(1000).build())) {
            assertThat(failureStatus(send(small, HttpMethod.GET, "/bytes/5000", ""))).isEqualTo(502);
            assertThat(answer(send(small, HttpMethod.GET, "/bytes/10", ""))).startsWith("200 ");
        }
    }

    @Test
    void aFullPoolAndLineIs503() throws Exception {
        try (OriginClient one = new OriginClient(origin.address(),
                OriginOptions.builder().maxConnectionsPerLoop(1).maxWaitingPerLoop(0).build())) {
            CompletableFuture<FullHttpResponse> slow = send(one, HttpMethod.GET, "/slow?ms=300", "");
            assertThat(failureStatus(send(one, HttpMethod.GET, "/hello", ""))).isEqualTo(503);
            assertThat(answer(slow)).isEqualTo("200 slow 300\n");
        }
    }

    @Test
    void waitingRequestsTakeTurnsOnOneConnection() throws Exception {
        try (OriginClient one = new OriginClient(origin.address(),
                OriginOptions.builder().maxConnectionsPerLoop(1).build())) {
            List<CompletableFuture<FullHttpResponse>> all = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                all.add(send(one, HttpMethod.GET, "/bytes/" + (i + 1), ""));
            }
            for (int i = 0; i < 5; i++) {
                FullHttpResponse r = all.get(i).get(20, TimeUnit.SECONDS);
                assertThat(ByteBufUtil.getBytes(r.content())).isEqualTo(SampleOrigin.bytes(i + 1));
                r.release();
            }
            assertThat(origin.connectionCount()).isEqualTo(1);
        }
    }

    @Test
    void badOptionsFailFast() {
        assertThatThrownBy(() -> OriginOptions.builder().connectTimeout(Duration.ZERO).build())
                .hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> OriginOptions.builder().maxConnectionsPerLoop(0).build())
                .hasMessageContaining("maxConnectionsPerLoop");
    }
}
