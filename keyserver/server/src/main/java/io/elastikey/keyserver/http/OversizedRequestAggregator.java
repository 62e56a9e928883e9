package io.elastikey.keyserver.http;

import io.elastikey.protocol.ski.SkiError;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Netty's aggregator, answering a body over {@code limits.body} with {@code 413} and the SKI
 * JSON error shape rather than an empty page, then closing: the rest of the body is still on
 * the wire and the connection cannot be resynchronised.
 */
final class OversizedRequestAggregator extends HttpObjectAggregator {

    OversizedRequestAggregator(int maxBodyBytes) {
        super(maxBodyBytes);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // The base class releases the message after this returns.
        FullHttpResponse response = SkiAnswers.error(ctx.alloc(), HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, SkiError.MALFORMED_REQUEST);
        // Connection: close, so an HTTP/1.1 client does not reuse the connection (HTTP/2 drops the header).
        HttpUtil.setKeepAlive(response, false);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
