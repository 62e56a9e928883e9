package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.protocol.ProtocolLimits;
import io.elastikey.scaleup.protocol.ScaleUpRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The codec and admission handlers one at a time, through {@link EmbeddedChannel}. */
class PipelineHandlersTest {

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    private static EmbeddedChannel codec() {
        return new EmbeddedChannel(new LineBasedFrameDecoder(ProtocolLimits.MAX_LINE_BYTES, true, true),
                AnswerEncoder.INSTANCE, RequestDecoder.INSTANCE);
    }

    private static String written(EmbeddedChannel ch) {
        ByteBuf out = ch.readOutbound();
        try {
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            out.release();
        }
    }

    @Test
    void aLineSplitAcrossReadsBecomesOneRequest() {
        EmbeddedChannel ch = codec();
        ch.writeInbound(text("{\"op\":\"rescale\",\"cli"));
        assertThat((Object) ch.readInbound()).isNull();
        ch.writeInbound(text("ent\":\"ks\",\"memory_mb\":12}\n{\"op\":\"status\",\"client\":\"ks\"}\n"));
        AgentRequest first = ch.readInbound();
        AgentRequest second = ch.readInbound();
        assertThat(first.request()).isEqualTo(ScaleUpRequest.rescale("ks", 12, ""));
        assertThat(second.request()).isEqualTo(ScaleUpRequest.status("ks"));
        assertThat((Object) ch.readOutbound()).isNull();
    }

    @Test
    void aMalformedLineIsAnsweredAndTheChannelStaysOpen() {
        EmbeddedChannel ch = codec();
        ch.writeInbound(text("{\"op\":\"rescale\",\"client\":\"ks\",\"memory_mb\":-1}\n"));
        assertThat(written(ch)).isEqualTo("{\"status\":\"error\",\"client\":\"\",\"granted_mb\":0,\"pool_free_mb\":0,"
                + "\"elapsed_us\":0,\"message\":\"bad request: memory_mb must be 0..1099511627776\"}\n");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void anOverlongLineIsAnsweredThenClosedWithoutWaitingForItsEnd() {
        EmbeddedChannel ch = codec();
        ch.writeInbound(text("x".repeat(ProtocolLimits.MAX_LINE_BYTES + 1)));
        assertThat(written(ch)).contains("line longer than 4096 bytes");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void theInFlightLimiterRefusesBeyondItsMaxAndStopsReading() {
        EmbeddedChannel ch = new EmbeddedChannel(AnswerEncoder.INSTANCE, new InFlightLimiter(2));
        AgentRequest r = new AgentRequest(ScaleUpRequest.status("ks"), System.nanoTime());
        ch.writeInbound(r, r, r);
        assertThat((Object) ch.readInbound()).isSameAs(r);
        assertThat((Object) ch.readInbound()).isSameAs(r);
        assertThat((Object) ch.readInbound()).isNull();
        assertThat(written(ch)).contains("too many requests in flight");
        assertThat(ch.config().isAutoRead()).isFalse();
        ch.writeOutbound(new ScaleUpResponse(Status.GRANTED, "ks", 0, 0, 0, ""));
        assertThat(ch.config().isAutoRead()).isTrue();
        assertThat(written(ch)).contains("\"status\":\"granted\"");
    }
}
