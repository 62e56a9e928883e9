// StreamRequestLineCheck -- resets an HTTP/2 stream whose method or target no HTTP/1 request line could carry.
package io.elastikey.edge.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderValidationUtil;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * In each stream's pipeline before Netty's conversion to an HTTP/1 request: refuses a request whose {@code :method}
 * is not a token, or whose target (its {@code :path}, or {@code :authority} for {@code CONNECT}) holds a space, CR
 * or LF. That conversion allocates the request's body buffer first and then throws on such a request line without
 * releasing it: one pooled buffer lost per malformed request, which a client could repeat until the edge's direct
 * memory ran out. The refusal goes down the pipeline as a {@code PROTOCOL_ERROR} stream error, which resets the
 * stream. Only a HEADERS frame with a {@code :method} is a request's head: the codec has already refused a first
 * one without it, and trailers carry no pseudo-header. One instance serves every stream.
 */
@Sharable
final class StreamRequestLineCheck extends ChannelInboundHandlerAdapter {
    static final StreamRequestLineCheck INSTANCE = new StreamRequestLineCheck();

    private StreamRequestLineCheck() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2HeadersFrame frame && frame.headers().method() != null) {
            String problem = problem(frame.headers());
            if (problem != null) {
                ReferenceCountUtil.release(msg);
                ctx.fireExceptionCaught(Http2Exception.streamError(frame.stream().id(), Http2Error.PROTOCOL_ERROR,
                        "%s", problem));
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** What makes {@code headers}, which have a {@code :method}, no request line; null when nothing does. */
    private static String problem(Http2Headers headers) {
        CharSequence method = headers.method();
        if (method.length() == 0 || HttpHeaderValidationUtil.validateToken(method) != -1) {
            return "a :method that is not a token";
        }
        CharSequence target = HttpMethod.CONNECT.asciiName().contentEqualsIgnoreCase(method) ? headers.authority()
                : headers.path();
        if (target == null || !HttpUtil.isEncodingSafeStartLineToken(target)) {
            return "a request target with a space, CR or LF";
        }
        return null;
    }
}
