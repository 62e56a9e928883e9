// Http2ConnectionTail -- the end of an HTTP/2 connection's pipeline: notices GOAWAY, swallows what nobody reads.
package io.elastikey.protocol.ski;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * Connection-level frames {@link Http2Exchanges} passes on (GOAWAY, SETTINGS, PING) end here. The first SETTINGS makes the
 * connection ready; GOAWAY means "no new streams on this connection": the pool is told to retire it. Errors of the
 * connection itself close it, which fails its open streams (Http2Exchanges).
 */
final class Http2ConnectionTail extends ChannelInboundHandlerAdapter {
    private final Consumer<Channel> onGoAway;
    private final CompletableFuture<Void> settingsReceived = new CompletableFuture<>();

    Http2ConnectionTail(Consumer<Channel> onGoAway) {
        this.onGoAway = onGoAway;
    }

    /** Completes with the server's first SETTINGS frame, which carries its stream limit. */
    CompletableFuture<Void> settingsReceived() {
        return settingsReceived;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2SettingsFrame) {
                settingsReceived.complete(null);
            } else if (msg instanceof Http2GoAwayFrame) {
                onGoAway.accept(ctx.channel());
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
