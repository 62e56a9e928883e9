// RequestDecoder -- a line to a request; a line that is none gets an error answer.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.protocol.MalformedMessageException;
import io.elastikey.scaleup.protocol.ProtocolLimits;
import io.elastikey.scaleup.protocol.ScaleUpJson;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Parses each line (the frame decoder before it has cut off the {@code '\n'}) into an {@link AgentRequest}. A line
 * that is not a valid request gets an {@code error} answer naming the problem and the connection stays open; a line
 * over 4096 bytes (the frame decoder's {@link TooLongFrameException}) gets an error answer and the connection is
 * closed, since the rest of that line cannot be trusted to be framed.
 */
@Sharable
final class RequestDecoder extends MessageToMessageDecoder<ByteBuf> {
    static final RequestDecoder INSTANCE = new RequestDecoder();
    private static final Logger log = LoggerFactory.getLogger(RequestDecoder.class);

    private RequestDecoder() {
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf line, List<Object> out) {
        long now = System.nanoTime();
        byte[] bytes = ByteBufUtil.getBytes(line);
        try {
            out.add(new AgentRequest(ScaleUpJson.decodeRequest(bytes, 0, bytes.length), now));
        } catch (MalformedMessageException e) {
            log.debug("bad request from {}: {}", ctx.channel().remoteAddress(), e.getMessage());
            ctx.writeAndFlush(ErrorAnswers.badRequest("bad request: " + e.getMessage()));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            ctx.writeAndFlush(ErrorAnswers.badRequest("bad request: line longer than "
                    + ProtocolLimits.MAX_LINE_BYTES + " bytes")).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        log.debug("closing a connection: {}", cause.toString());
        ctx.close();
    }
}
