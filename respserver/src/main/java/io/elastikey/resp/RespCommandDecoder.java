// RespCommandDecoder -- turns an aggregated array (or an inline line) into a RespRequest without copying.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link ArrayRedisMessage} of bulk strings becomes a {@link RespRequest} whose arguments are
 * the bulk strings' own buffers; the request takes over the message's reference. Empty and null
 * arrays and blank inline lines are skipped, as Redis does. An inline command (what
 * {@code telnet} sends) is split on spaces and tabs; quoting is not interpreted.
 * {@link RespFrameGuard} has already checked that every element is a non-null bulk string.
 */
final class RespCommandDecoder extends MessageToMessageDecoder<RedisMessage> {

    @Override
    protected void decode(ChannelHandlerContext ctx, RedisMessage msg, List<Object> out) {
        if (msg instanceof ArrayRedisMessage array) {
            List<RedisMessage> children = array.children();
            if (array.isNull() || children.isEmpty()) {
                return;
            }
            List<ByteBuf> args = new ArrayList<>(children.size());
            for (RedisMessage child : children) {
                args.add(((FullBulkStringRedisMessage) child).content());
            }
            out.add(RespRequest.of(args, ReferenceCountUtil.retain(array)));
        } else if (msg instanceof InlineCommandRedisMessage inline) {
            List<ByteBuf> args = new ArrayList<>();
            for (String word : inline.content().trim().split("[ \t]+")) {
                if (!word.isEmpty()) {
                    args.add(Unpooled.wrappedBuffer(word.getBytes(StandardCharsets.UTF_8)));
                }
            }
            if (!args.isEmpty()) {
                out.add(RespRequest.of(args, null));
            }
        } else {
            throw new RespProtocolException("Protocol error: unexpected " + msg.getClass().getSimpleName());
        }
    }
}
