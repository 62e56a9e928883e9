// RespFrameGuard -- enforces the request shape and size limits between RedisDecoder and the aggregators.
package io.elastikey.resp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.util.ReferenceCountUtil;

/**
 * A command is a flat array of bulk strings, or an inline line. Netty's bulk-string aggregator
 * trusts every declared length (up to 512 MB in Netty 4.1), and its array aggregator, though
 * bounded here too ({@code RedisArrayAggregator(maxElements, 1)}), knows nothing of total size or
 * element types. This handler sees the decoder's parts before any aggregation and throws
 * {@link RespProtocolException} for an array longer than {@link RespLimits#maxArrayLength}, a nested
 * array, a null or oversized bulk string, a command whose strings add up to more than
 * {@link RespLimits#maxRequestBytes}, or any other type where a command must be. After the first
 * violation it drops everything: the connection is closing.
 */
final class RespFrameGuard extends ChannelInboundHandlerAdapter {
    private final RespLimits limits;
    private long remaining;      // elements still expected in the current array
    private long requestBytes;   // declared bulk bytes of the current array
    private boolean inBulk;      // between a bulk header and its last content
    private long heldHeader = -1; // the length of a bulk header not yet passed on
    private boolean failed;

    RespFrameGuard(RespLimits limits) {
        this.limits = limits;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (failed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            check(msg);
        } catch (RespProtocolException e) {
            failed = true;
            ReferenceCountUtil.release(msg);
            throw e;
        }
        forward(ctx, msg);
    }

    /**
     * A bulk string whose bytes arrived in one read comes from the decoder as a header and one last
     * content. Passed on as one {@link FullBulkStringRedisMessage} (same buffer, no copy), the bulk
     * aggregator lets it through instead of building a composite buffer around it: fewer
     * allocations and handler calls per argument, on the event loop.
     */
    private void forward(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof BulkStringHeaderRedisMessage header) {
            heldHeader = header.bulkStringLength();
            return;
        }
        if (heldHeader >= 0 && msg instanceof BulkStringRedisContent content) {
            long length = heldHeader;
            heldHeader = -1;
            if (msg instanceof LastBulkStringRedisContent && content.content().readableBytes() == length) {
                ctx.fireChannelRead(new FullBulkStringRedisMessage(content.content()));
                return;
            }
            ctx.fireChannelRead(new BulkStringHeaderRedisMessage((int) length));
        }
        ctx.fireChannelRead(msg);
    }

    private void check(Object msg) {
        if (inBulk) {
            if (!(msg instanceof BulkStringRedisContent)) {
                throw new RespProtocolException("Protocol error: truncated bulk string");
            }
            if (msg instanceof LastBulkStringRedisContent) {
                inBulk = false;
            }
            return;
        }
        if (remaining == 0) {
            checkTopLevel(msg);
            return;
        }
        if (msg instanceof BulkStringHeaderRedisMessage header) {
            countBulk(header.bulkStringLength());
            inBulk = true;
        } else if (msg instanceof FullBulkStringRedisMessage full && !full.isNull()) {
            countBulk(full.content().readableBytes());
        } else {
            throw new RespProtocolException("Protocol error: expected '$', got " + describe(msg));
        }
        remaining--;
    }

    private void checkTopLevel(Object msg) {
        if (msg instanceof ArrayHeaderRedisMessage header) {
            long n = header.length();
            if (n > limits.maxArrayLength()) {
                throw new RespProtocolException("Protocol error: invalid multibulk length");
            }
            remaining = Math.max(0, n);
            requestBytes = 0;
        } else if (!(msg instanceof InlineCommandRedisMessage)) {
            throw new RespProtocolException("Protocol error: expected '*', got " + describe(msg));
        }
    }

    private void countBulk(long length) {
        if (length < 0 || length > limits.maxBulkBytes()) {
            throw new RespProtocolException("Protocol error: invalid bulk length");
        }
        requestBytes += length;
        if (requestBytes > limits.maxRequestBytes()) {
            throw new RespProtocolException("Protocol error: request larger than " + limits.maxRequestBytes()
                    + " bytes");
        }
    }

    private static String describe(Object msg) {
        String name = msg.getClass().getSimpleName();
        return name.endsWith("RedisMessage") ? name.substring(0, name.length() - "RedisMessage".length()) : name;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failed = true; // whatever the decoder emits after its own error is not to be trusted
        ctx.fireExceptionCaught(cause);
    }
}
