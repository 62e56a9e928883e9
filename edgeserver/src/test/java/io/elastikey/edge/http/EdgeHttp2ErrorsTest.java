// EdgeHttp2ErrorsTest -- malformed HTTP/2 requests and protocol errors get the error codes RFC 9113 names.
package io.elastikey.edge.http;

import io.elastikey.edge.content.AnswerBacklogLimit;
import io.elastikey.edge.content.Leaks;
import io.elastikey.protocol.http.Http2FrameScript;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edge's HTTP/2 pipeline ({@link EdgeProtocolNegotiator}) on an {@link EmbeddedChannel}, with a stand-in for the
 * content handler that answers {@code 200 ok} or holds the request, fed frames by an {@link Http2FrameScript}. What
 * h2spec checks in these cases, shown without it: a stream error resets the stream with its own code (never
 * {@code CANCEL}), a connection error's GOAWAY carries its code (never {@code NO_ERROR}). Netty's leak detector
 * watches every buffer ({@link Leaks}).
 */
@ExtendWith(Leaks.class)
class EdgeHttp2ErrorsTest {
    private final List<FullHttpRequest> held = new ArrayList<>();
    private final List<String> served = new ArrayList<>();
    private boolean hold;
    private int answerBytes = 2;
    private final AnswerBacklogLimit backlog = new AnswerBacklogLimit(1 << 20, 16 << 20);
    private final EmbeddedChannel server = edge();
    private final Http2FrameScript client = new Http2FrameScript(server);

    @AfterEach
    void close() {
        held.forEach(FullHttpRequest::release);
        client.close();
        server.finishAndReleaseAll();
    }

    @Test
    void aRequestWithoutMethodSchemeOrPathIsResetWithProtocolErrorAndNeverServed() {
        client.headers(1, without(":method"), true);
        client.headers(3, without(":scheme"), true);
        client.headers(5, without(":path"), true);
        Map<Integer, List<String>> frames = client.received();
        for (int stream : new int[] {1, 3, 5}) {
            assertThat(frames.get(stream)).as("stream %d", stream)
                    .containsExactly("rst " + Http2Error.PROTOCOL_ERROR.code());
        }
        assertThat(served).isEmpty();

        client.headers(7, request(), true);
        assertThat(client.received().get(7)).containsExactly("headers 200", "data ok end");
        assertThat(served).containsExactly("/hello");
    }

    /** Netty's conversion of these to HTTP/1 requests loses a pooled buffer each: the leak check after the test. */
    @Test
    void aRequestNoHttpRequestLineCouldCarryIsResetWithProtocolError() {
        client.headers(1, request().path("/a b"), true);
        client.headers(3, request().method("GET /x"), true);
        client.headers(5, request().method("CONNECT").authority("host:443 x"), true);
        Map<Integer, List<String>> frames = client.received();
        for (int stream : new int[] {1, 3, 5}) {
            assertThat(frames.get(stream)).as("stream %d", stream)
                    .containsExactly("rst " + Http2Error.PROTOCOL_ERROR.code());
        }
        assertThat(served).isEmpty();
    }

    @Test
    void dataAfterTheEndOfAStreamResetsItWithStreamClosed() {
        hold = true;
        client.headers(1, request(), true);
        assertThat(held).hasSize(1);
        client.data(1, "more", true);
        assertThat(client.received().get(1)).containsExactly("rst " + Http2Error.STREAM_CLOSED.code());
        assertThat(server.isActive()).isTrue();
    }

    /**
     * A client that asks on several streams and never opens its receive window: the first answer waits in flow
     * control, and the next ones would take the connection past its backlog (1 MiB here), so their streams are reset.
     */
    @Test
    void answersPastTheConnectionsBacklogAreNotKeptForAClientThatDoesNotRead() {
        answerBytes = 700 * 1024;
        client.send((writer, ctx) -> {
            writer.writeSettings(ctx, new Http2Settings().initialWindowSize(0), ctx.newPromise());
            writer.writeHeaders(ctx, 1, request(), 0, true, ctx.newPromise());
            writer.writeHeaders(ctx, 3, request(), 0, true, ctx.newPromise());
            writer.writeHeaders(ctx, 5, request(), 0, true, ctx.newPromise());
        });
        Map<Integer, List<String>> frames = client.received();
        assertThat(frames.get(1)).containsExactly("headers 200");
        for (int stream : new int[] {3, 5}) {
            assertThat(frames.get(stream)).as("stream %d", stream)
                    .containsExactly("rst " + Http2Error.ENHANCE_YOUR_CALM.code());
        }
        assertThat(backlog.refused()).isEqualTo(2);
        assertThat(backlog.unsent()).isEqualTo(answerBytes);
    }

    @Test
    void aConnectionErrorIsAnsweredWithGoAwayCarryingItsCode() {
        // Two increments that take the connection's send window past 2^31-1 (RFC 9113, 6.9.1).
        client.send((writer, ctx) -> {
            writer.writeWindowUpdate(ctx, 0, Integer.MAX_VALUE, ctx.newPromise());
            writer.writeWindowUpdate(ctx, 0, Integer.MAX_VALUE, ctx.newPromise());
        });
        assertThat(client.received().get(0)).containsExactly("goaway " + Http2Error.FLOW_CONTROL_ERROR.code());
        assertThat(server.isActive()).isFalse();
    }

    private static Http2Headers request() {
        return new DefaultHttp2Headers().method("GET").scheme("https").path("/hello").authority("localhost");
    }

    private static Http2Headers without(String pseudoHeader) {
        Http2Headers headers = request();
        headers.remove(pseudoHeader);
        return headers;
    }

    private EmbeddedChannel edge() {
        // A server channel as the parent: Http2MultiplexHandler tells server from client by it.
        EmbeddedChannel channel = new EmbeddedChannel(new LocalServerChannel(), DefaultChannelId.newInstance(), true,
                false);
        ProtocolErrorHandler errors = new ProtocolErrorHandler(kind -> { });
        EdgeProtocolNegotiator negotiator = new EdgeProtocolNegotiator(16 * 1024, 64 * 1024, Duration.ofSeconds(10),
                errors, backlog, StandIn::new);
        channel.pipeline().addLast("alpn", negotiator);
        channel.pipeline().addLast(ProtocolErrorHandler.NAME, errors);
        negotiator.configurePipeline(channel.pipeline().context(negotiator), ApplicationProtocolNames.HTTP_2);
        channel.pipeline().remove(negotiator);
        return channel;
    }

    /** The content handler's place: answers {@code 200 okok...}, or holds the request when the test says so. */
    private final class StandIn extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            FullHttpRequest request = (FullHttpRequest) msg;
            if (hold) {
                held.add(request);
                return;
            }
            served.add(request.uri());
            request.release();
            FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("ok".repeat(answerBytes / 2), StandardCharsets.US_ASCII));
            ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answerBytes);
            ctx.writeAndFlush(ok);
        }
    }
}
