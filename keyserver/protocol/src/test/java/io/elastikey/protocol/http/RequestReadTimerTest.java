package io.elastikey.protocol.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/1.1 request-read clock on the embedded event loop's own time: whole requests never time out, however many
 * arrive, and a request left unfinished is answered once its own time has run out, not an earlier request's.
 */
class RequestReadTimerTest {
    private static final long TIMEOUT_MILLIS = 10_000;
    private static final String WHOLE = "POST / HTTP/1.1\r\nHost: k\r\nContent-Length: 2\r\n\r\n{}";
    private static final String HEAD_ONLY = "POST / HTTP/1.1\r\nHost: k\r\nContent-Length: 2\r\n\r\n";

    private final List<ProtocolErrorKind> reported = new ArrayList<>();
    private final List<FullHttpRequest> timedOut = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel();

    RequestReadTimerTest() {
        channel.pipeline().addLast(new ProtocolErrorHandler(reported::add));
        channel.pipeline().addLast("http", new HttpServerCodec());
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof FullHttpRequest request && request.decoderResult().isFailure()) {
                    timedOut.add(request);
                } else {
                    ReferenceCountUtil.release(msg);
                }
            }
        });
        RequestReadTimer.installHttp1(channel.pipeline(), "http", Duration.ofMillis(TIMEOUT_MILLIS),
                channel.pipeline().get(ProtocolErrorHandler.class));
    }

    @Test
    void wholeRequestsNeverRunOutHoweverLongTheConnectionLives() {
        for (int i = 0; i < 50; i++) {
            send(WHOLE);
            advance(TIMEOUT_MILLIS / 4);
        }

        assertThat(timedOut).isEmpty();
        assertThat(reported).isEmpty();
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void anUnfinishedRequestRunsOutOnItsOwnTimeNotOnTheCheckArmedForAnEarlierOne() {
        // The embedded loop's clock also moves with real time, so the bounds keep a margin of half a second.
        send(WHOLE); // arms a check at 10 s
        advance(6_000);
        send(HEAD_ONLY); // its own time runs out at 16 s

        advance(4_500); // 10.5 s: the earlier check has fired, 4.5 s into this request
        assertThat(timedOut).isEmpty();

        advance(5_000); // 15.5 s
        assertThat(timedOut).isEmpty();

        advance(2_500); // 18 s
        assertThat(timedOut).hasSize(1);
        assertThat(timedOut.get(0).decoderResult().cause()).isInstanceOf(RequestReadTimeoutException.class);
        assertThat(reported).containsExactly(ProtocolErrorKind.TIMEOUT);
    }

    @Test
    void aRequestFinishedBeforeItsTimeLeavesNothingToExpire() {
        send(HEAD_ONLY);
        // Not TIMEOUT_MILLIS - 1: the embedded loop's clock also moves with real time, and on a loaded machine the
        // millisecond left was gone before the body arrived (a CI failure). Half the time keeps a margin.
        advance(TIMEOUT_MILLIS / 2);
        send("{}");

        advance(10 * TIMEOUT_MILLIS);

        assertThat(timedOut).isEmpty();
        assertThat(reported).isEmpty();
    }

    @Test
    void aConnectionTimesOutOnceAndItsClockStaysStoppedAfterwards() {
        send(HEAD_ONLY);
        advance(TIMEOUT_MILLIS);
        assertThat(timedOut).hasSize(1);

        advance(10 * TIMEOUT_MILLIS);

        assertThat(timedOut).hasSize(1);
        assertThat(reported).containsExactly(ProtocolErrorKind.TIMEOUT);
    }

    @Test
    void closingTheConnectionReleasesTheArmedCheck() {
        send(HEAD_ONLY);

        channel.close();
        advance(2 * TIMEOUT_MILLIS);

        assertThat(timedOut).isEmpty();
        assertThat(reported).isEmpty();
    }

    private void send(String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    private void advance(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }
}
