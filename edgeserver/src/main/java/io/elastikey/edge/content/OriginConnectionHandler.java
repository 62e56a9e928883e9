// OriginConnectionHandler -- the last handler of one origin connection: matches its answer to the call in flight.
package io.elastikey.edge.content;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.channels.ClosedChannelException;

/**
 * One call at a time rides a connection (no pipelining: a slow answer would hold up the ones behind it). The answer
 * goes to the call, then the connection goes back to the pool, reusable only if the origin kept it alive. An error
 * or a close while a call is in flight goes to the pool, which fails or retries the call. The pool's idle timer
 * closes the connection only while no call is in flight; a call in flight has its own response timeout.
 */
final class OriginConnectionHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
    private final OriginPool pool;
    private OriginCall current;

    OriginConnectionHandler(OriginPool pool) {
        super(false); // the response is handed on, not released here
        this.pool = pool;
    }

    /** The call whose request is about to be written. */
    void begin(OriginCall call) {
        current = call;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
        OriginCall call = current;
        current = null;
        if (call == null || call.isDone()) {
            response.release(); // unsolicited, or the call timed out: the connection's state is unknown
            ctx.close();
            return;
        }
        if (response.decoderResult().isFailure()) {
            response.release();
            ctx.close();
            pool.broken(call, new OriginException(502, "origin sent a malformed response",
                    response.decoderResult().cause()));
            return;
        }
        boolean reusable = HttpUtil.isKeepAlive(response);
        call.complete(response);
        pool.released(ctx.channel(), reusable);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        OriginCall call = current;
        current = null;
        ctx.close();
        if (call != null) {
            pool.broken(call, cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        OriginCall call = current;
        current = null;
        if (call != null) {
            pool.broken(call, new ClosedChannelException());
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            if (current == null) {
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, event);
    }
}
