// ConnectionLimiter -- closes a new connection at once when the agent already has its maximum open.
package io.elastikey.scaleup.agent.net;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections across the agent and closes one over {@code maxConnections} before it is read, so a
 * flood of connections costs the agent file descriptors only up to the limit. (The key server's
 * {@code protocol.net.ConnectionLimiter} does the same; this module may not depend on that one.)
 */
@Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private final int maxConnections;
    private final AtomicInteger open = new AtomicInteger();

    ConnectionLimiter(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            ctx.channel().config().setAutoRead(false);
            ctx.close();
            return;
        }
        ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
        super.channelActive(ctx);
    }
}
