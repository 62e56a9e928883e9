package io.elastikey.protocol.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseSequencerTest {
    private final ResponseSequencer sequencer = new ResponseSequencer();
    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();

    @Test
    void answersAreWrittenInRequestOrder() {
        ResponseSequencer.Slot first = sequencer.reserve(false);
        ResponseSequencer.Slot second = sequencer.reserve(false);

        sequencer.complete(ctx, second, response("second"));
        assertThat((Object) channel.readOutbound()).isNull();
        sequencer.complete(ctx, first, response("first"));

        assertThat(body(channel.readOutbound())).isEqualTo("first");
        assertThat(body(channel.readOutbound())).isEqualTo("second");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void closingAnswerSaysConnectionClose() {
        sequencer.complete(ctx, sequencer.reserve(true), response("last"));

        FullHttpResponse written = channel.readOutbound();
        assertThat(written.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        written.release();
        assertThat(channel.isOpen()).as("lingers first").isTrue();
        channel.advanceTimeBy(LingeringClose.QUIET_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void requestsAfterTheClosingAnswerAreNotServed() {
        sequencer.complete(ctx, sequencer.reserve(true), response("last"));
        ((FullHttpResponse) channel.readOutbound()).release();

        FullHttpResponse late = response("late");
        sequencer.complete(ctx, sequencer.reserve(false), late);

        assertThat(sequencer.closing()).isTrue();
        assertThat(late.refCnt()).isZero();
        assertThat((Object) channel.readOutbound()).isNull();
    }

    @Test
    void answerCompletedAfterTheConnectionClosedIsReleased() {
        ResponseSequencer.Slot closing = sequencer.reserve(true);
        ResponseSequencer.Slot pipelined = sequencer.reserve(false);
        sequencer.complete(ctx, closing, response("closing"));
        ((FullHttpResponse) channel.readOutbound()).release();

        FullHttpResponse late = response("late");
        sequencer.complete(ctx, pipelined, late);

        assertThat(late.refCnt()).isZero();
        assertThat((Object) channel.readOutbound()).isNull();
    }

    private static FullHttpResponse response(String body) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII));
    }

    private static String body(Object written) {
        FullHttpResponse response = (FullHttpResponse) written;
        try {
            return response.content().toString(StandardCharsets.US_ASCII);
        } finally {
            response.release();
        }
    }
}
