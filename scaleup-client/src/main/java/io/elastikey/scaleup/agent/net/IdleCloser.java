// IdleCloser -- closes a connection the IdleStateHandler before it reports idle.
package io.elastikey.scaleup.agent.net;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;

/** A client that connects and sends nothing, or stops in the middle of a line, loses its connection. */
@Sharable
final class IdleCloser extends ChannelInboundHandlerAdapter {
    static final IdleCloser INSTANCE = new IdleCloser();

    private IdleCloser() {
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
