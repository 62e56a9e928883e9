package io.elastikey.protocol.net;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;

/** Closes a connection the {@code IdleStateHandler} before it reports idle for {@code timeouts.idle}. */
@Sharable
public final class IdleConnectionCloser extends ChannelInboundHandlerAdapter {
    public static final IdleConnectionCloser INSTANCE = new IdleConnectionCloser();

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
