// SkiHttp2FrameCodec -- Netty's HTTP/2 frame codec, answering a header block over the limit as HTTP/1.1 does.
package io.elastikey.keyserver.http;

import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.tls.ClientAuthenticationHandler;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiJson;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * The key server's HTTP/2 frame codec: Netty's, except for the answer to a header block over
 * {@code maxHeaderListSize}. Netty answers that itself, inside the codec, with a bodiless {@code 431}: the headers
 * were never decoded, so no stream channel exists and no SKI handler sees the request. Here the answer is what
 * HTTP/1.1 gives the same request ({@link SkiHttpHandler}): {@code 431} with the SKI JSON error
 * {@code {"error":"malformed request"}}, counted as a protocol error and told to the {@link RequestLog} (audit and
 * metrics) as an undecoded request.
 *
 * <p>The connection stays up, as with Netty's answer: the codec resets the stream right after this answer. A header
 * block far over the limit (Netty's HPACK decoder allows a quarter more) remains a connection error, GOAWAY.
 */
final class SkiHttp2FrameCodec extends Http2FrameCodec {
    private final ProtocolErrorHandler errors;
    private final RequestLog requestLog;

    private SkiHttp2FrameCodec(Http2ConnectionEncoder encoder, Http2ConnectionDecoder decoder, Http2Settings settings,
                               boolean decoupleCloseAndGoAway, boolean flushPreface, ProtocolErrorHandler errors,
                               RequestLog requestLog) {
        super(encoder, decoder, settings, decoupleCloseAndGoAway, flushPreface);
        this.errors = errors;
        this.requestLog = requestLog;
    }

    /** A server-side builder with Netty's defaults, for the settings and limits to be set on. */
    static Builder forServer(ProtocolErrorHandler errors, RequestLog requestLog) {
        return new Builder(errors, requestLog);
    }

    /**
     * Called by Netty's stream-error handling, on the event loop, for a stream whose header block was over the
     * limit and on which nothing has been sent; the stream is reset afterwards.
     */
    @Override
    protected void handleServerHeaderDecodeSizeError(ChannelHandlerContext ctx, Http2Stream stream) {
        long start = System.nanoTime();
        ByteBuf body = ctx.alloc().buffer(32);
        SkiJson.encodeError(SkiError.MALFORMED_REQUEST, body);
        Http2Headers headers = new DefaultHttp2Headers()
                .status(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE.codeAsText())
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        encoder().writeHeaders(ctx, stream.id(), headers, 0, false, ctx.newPromise());
        encoder().writeData(ctx, stream.id(), body, 0, true, ctx.newPromise());
        try {
            // The data waits in the flow controller until the next flush, and the reset that follows this call
            // would drop it: write it now, so it leaves before the RST_STREAM.
            encoder().flowController().writePendingBytes();
        } catch (Http2Exception e) {
            throw new IllegalStateException("cannot write the 431 answer", e); // Netty makes it a connection error
        }
        errors.report(ctx.channel(), ProtocolErrorKind.HTTP2, "header list over the limit, answered 431");
        requestLog.answered(ClientAuthenticationHandler.caller(ctx.channel()), null, null,
                SkiError.MALFORMED_REQUEST, System.nanoTime() - start);
    }

    /** Netty's builder, building this codec. */
    static final class Builder extends Http2FrameCodecBuilder {
        private final ProtocolErrorHandler errors;
        private final RequestLog requestLog;

        private Builder(ProtocolErrorHandler errors, RequestLog requestLog) {
            this.errors = errors;
            this.requestLog = requestLog;
            server(true);
            gracefulShutdownTimeoutMillis(0); // as Http2FrameCodecBuilder.forServer() sets it
            validateRequiredPseudoHeaders(true); // RFC 9113, 8.3.1: a request without :scheme is malformed too
        }

        @Override
        protected Http2FrameCodec build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                                        Http2Settings initialSettings) {
            SkiHttp2FrameCodec codec = new SkiHttp2FrameCodec(encoder, decoder, initialSettings,
                    decoupleCloseAndGoAway(), flushPreface(), errors, requestLog);
            codec.gracefulShutdownTimeoutMillis(gracefulShutdownTimeoutMillis());
            return codec;
        }
    }
}
