// AnswerEncoder -- an answer record to its JSON line.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.protocol.ScaleUpJson;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

/** Writes each {@link ScaleUpResponse} as one line of at most 4096 bytes plus {@code '\n'}. */
@Sharable
final class AnswerEncoder extends MessageToMessageEncoder<ScaleUpResponse> {
    static final AnswerEncoder INSTANCE = new AnswerEncoder();

    private AnswerEncoder() {
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ScaleUpResponse answer, List<Object> out) {
        out.add(Unpooled.wrappedBuffer(ScaleUpJson.encodeAnswer(answer)));
    }
}
