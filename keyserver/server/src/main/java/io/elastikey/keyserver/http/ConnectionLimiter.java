package io.elastikey.keyserver.http;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections and closes a new one at once when {@code limits.connections} are
 * already open, before any TLS work is spent on it. Shared by every connection.
 */
@Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private final int maxConnections;
    private final AtomicInteger open = new AtomicInteger();
    private final KeyServerMetrics metrics;

    ConnectionLimiter(int maxConnections, KeyServerMetrics metrics) {
        this.maxConnections = maxConnections;
        this.metrics = metrics;
        metrics.gauge("elastikey.connections.open", "Open client connections", open, AtomicInteger::get);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            metrics.connectionRefused();
            ctx.channel().config().setAutoRead(false);
            ctx.close();
            return;
        }
        ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
        super.channelActive(ctx);
    }
}
