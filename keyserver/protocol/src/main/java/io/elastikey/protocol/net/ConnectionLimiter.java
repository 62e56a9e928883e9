package io.elastikey.protocol.net;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open connections and closes a new one at once when {@code limits.connections} are
 * already open, before any TLS work is spent on it. Shared by every connection of a server;
 * its count is the server's one open-connection gauge.
 */
@Sharable
public final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private final int maxConnections;
    private final AtomicInteger open = new AtomicInteger();
    private final Runnable onRefused;

    /** @param onRefused runs on the event loop for each connection refused, for a metric */
    public ConnectionLimiter(int maxConnections, Runnable onRefused) {
        this.maxConnections = maxConnections;
        this.onRefused = onRefused;
    }

    /** Connections open now. */
    public int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            onRefused.run();
            ctx.channel().config().setAutoRead(false);
            ctx.close();
            return;
        }
        ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
        super.channelActive(ctx);
    }
}
