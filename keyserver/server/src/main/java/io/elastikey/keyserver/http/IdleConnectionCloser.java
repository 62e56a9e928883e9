package io.elastikey.keyserver.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;

/** Closes a connection the {@code IdleStateHandler} before it reports idle for {@code timeouts.idle}. */
@Sharable
final class IdleConnectionCloser extends ChannelInboundHandlerAdapter {
    static final IdleConnectionCloser INSTANCE = new IdleConnectionCloser();

    private IdleConnectionCloser() {
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }
}
