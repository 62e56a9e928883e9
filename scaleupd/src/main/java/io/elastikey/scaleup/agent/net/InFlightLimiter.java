// InFlightLimiter -- bounds the requests one connection has waiting for the decision thread.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts requests passed on and answers written back. While a connection has {@code max} unanswered it stops
 * reading from it (backpressure); a request beyond that (already read in the same batch) gets an error answer
 * instead of a place in the decision queue. So a client that pipelines without reading cannot grow the agent's
 * queue without bound. One instance per connection; runs on the connection's event loop.
 */
final class InFlightLimiter extends ChannelDuplexHandler {
    private final int max;
    private int inFlight;

    InFlightLimiter(int max) {
        this.max = max;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof AgentRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (inFlight >= max) {
            ctx.writeAndFlush(ErrorAnswers.error(request.request().client(), 0, 0, request.elapsedUs(),
                    "too many requests in flight on this connection (max " + max + "); read the answers first"));
            return;
        }
        if (++inFlight >= max) {
            ctx.channel().config().setAutoRead(false);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ScaleUpResponse && inFlight > 0) {
            if (inFlight-- == max) {
                ctx.channel().config().setAutoRead(true);
            }
        }
        ctx.write(msg, promise);
    }
}
