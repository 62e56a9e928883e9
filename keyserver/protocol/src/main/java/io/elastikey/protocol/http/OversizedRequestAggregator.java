// OversizedRequestAggregator -- aggregates HTTP/1.1 requests; one whose body is over the limit goes on to be answered 413.
package io.elastikey.protocol.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpContentException;

/**
 * Netty's aggregator for HTTP/1.1, except that a body over the limit is answered by the application, in request
 * order, like any other request: the key server with the SKI JSON error shape, the edge with its own text.
 *
 * <p>The request goes on, as a {@link FullHttpRequest} without body whose decoder result is a
 * {@link TooLongHttpContentException}, to the application's handler ({@link RequestChecks#undecodable} gives
 * {@code 413}). The aggregator reads and drops the rest of the body, so the connection stays usable. Closing at once
 * instead (Netty's aggregator does, for a request that asked to close) would leave unread body bytes in the
 * server's receive buffer, and the kernel would answer the close with a reset that can destroy the 413 before the
 * client reads it.
 *
 * <p>An {@code Expect} header is not answered here either, except with {@code 100 Continue}. Netty's aggregator
 * would write a bodiless {@code 417} for an expectation it does not know and a bodiless {@code 413} for
 * {@code 100-continue} with a {@code Content-Length} over the limit, itself, at once: past the application's
 * handler, so without its body, its log line or its metrics, and ahead of answers still due to earlier pipelined
 * requests. Here the first is aggregated like any request ({@link #hasUnknownExpectation} tells the handler to
 * answer {@code 417}) and the second goes on as the too-long request above. Both servers use this one class.
 */
public final class OversizedRequestAggregator extends HttpObjectAggregator {

    public OversizedRequestAggregator(int maxBodyBytes) {
        super(maxBodyBytes);
    }

    /**
     * Netty's continue response for {@code start}, or {@code null} where the application answers instead: an
     * unknown expectation ({@code 417}), or {@code 100-continue} with a body over the limit
     * ({@link #handleOversizedMessage}, {@code 413}). Mirrors the checks of Netty's own in the same order.
     */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        if (start.decoderResult().isFailure() || hasUnknownExpectation(start)) {
            return null; // the application answers what the codec could not parse (400)
        }
        if (!pipeline.channel().isActive()) {
            return null; // an earlier answer closed the connection: nobody is waiting to send a body
        }
        if (HttpUtil.is100ContinueExpected(start) && declaredLength(start) > maxContentLength) {
            return null;
        }
        return super.newContinueResponse(start, maxContentLength, pipeline);
    }

    /**
     * The {@code Content-Length} {@code message} declares; -1 without one; past any limit when it is not a number,
     * which the application then answers {@code 413} without reading a body of unknown length.
     */
    private static long declaredLength(HttpMessage message) {
        try {
            return HttpUtil.getContentLength(message, -1L);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Whether {@code message} is an HTTP/1.1 (or later) request with an {@code Expect} other than {@code 100-continue},
     * which is answered {@code 417}: the test Netty's aggregator makes, which {@code HttpUtil} keeps to its package.
     */
    public static boolean hasUnknownExpectation(HttpMessage message) {
        if (!(message instanceof HttpRequest) || message.protocolVersion().compareTo(HttpVersion.HTTP_1_1) < 0) {
            return false;
        }
        String expect = message.headers().get(HttpHeaderNames.EXPECT);
        return expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // The base class releases the message after this returns.
        HttpRequest request = (HttpRequest) oversized;
        FullHttpRequest tooLong = new DefaultFullHttpRequest(request.protocolVersion(), request.method(),
                request.uri(), Unpooled.EMPTY_BUFFER);
        tooLong.headers().set(request.headers());
        tooLong.setDecoderResult(DecoderResult.failure(new TooLongHttpContentException(
                "request body over " + maxContentLength() + " bytes")));
        ctx.fireChannelRead(tooLong);
    }
}
