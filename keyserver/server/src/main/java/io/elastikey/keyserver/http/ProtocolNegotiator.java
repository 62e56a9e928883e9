package io.elastikey.keyserver.http;

import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.tls.ClientAuthenticationHandler;
import io.elastikey.protocol.http.OversizedRequestAggregator;
import io.elastikey.protocol.http.RequestReadTimer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.QuietProtocolNegotiator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolNames;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Completes the pipeline once ALPN has chosen the protocol. Both end in the same
 * {@link SkiHttpHandler} seeing full HTTP/1-style requests: over HTTP/2 {@link Http2Requests}
 * gathers each stream's frames into one, so the SKI logic exists once.
 * Clients that offer no ALPN get HTTP/1.1; a failed handshake is counted and logged by
 * {@link ClientAuthenticationHandler}.
 */
final class ProtocolNegotiator extends QuietProtocolNegotiator {
    private static final int RST_FRAMES_PER_STREAM = 16;
    /** The longest HTTP/1.1 request line, and HTTP/2 {@code :path}: longer gets 414. */
    static final int MAX_REQUEST_LINE = 4096;

    private final Limits limits;
    private final Supplier<SkiHttpHandler> handlers;

    private final ProtocolErrorHandler errors;
    private final RequestLog requestLog;

    /** The request-size limits both protocols enforce, and the time a request may take to arrive. */
    record Limits(int maxBodyBytes, int maxHeaderBytes, int maxStreams, Duration requestRead) {
    }

    /** @param requestLog told about the requests answered before they reach a handler (HTTP/2's 431) */
    ProtocolNegotiator(Limits limits, ProtocolErrorHandler errors, RequestLog requestLog,
                       Supplier<SkiHttpHandler> handlers) {
        this.limits = limits;
        this.errors = errors;
        this.requestLog = requestLog;
        this.handlers = handlers;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        ChannelPipeline pipeline = ctx.pipeline();
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            Http2Settings settings = Http2Settings.defaultSettings()
                    .maxConcurrentStreams(limits.maxStreams())
                    .maxHeaderListSize(limits.maxHeaderBytes());
            // Rapid-reset protection, set well above what honest clients produce: an SKI client resets one
            // stream per timed-out request, and under overload that can be every stream it has open.
            String last = ProtocolErrorHandler.NAME;
            pipeline.addBefore(last, "h2-frames", RequestReadTimer.http2Connection(limits.requestRead(), errors));
            pipeline.addBefore(last, "h2", SkiHttp2FrameCodec.forServer(errors, requestLog)
                    .initialSettings(settings)
                    .decoderEnforceMaxRstFramesPerWindow(RST_FRAMES_PER_STREAM * limits.maxStreams(), 10)
                    .build());
            pipeline.addBefore(last, "h2-requests", new Http2Requests(limits.maxBodyBytes(), limits.requestRead(),
                    errors));
            pipeline.addBefore(last, "ski", handlers.get());
        } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
            String last = ProtocolErrorHandler.NAME;
            pipeline.addBefore(last, "http", new HttpServerCodec(MAX_REQUEST_LINE, limits.maxHeaderBytes(), 8192));
            RequestReadTimer.installHttp1(pipeline, "http", limits.requestRead(), errors);
            pipeline.addBefore(last, "aggregate", new OversizedRequestAggregator(limits.maxBodyBytes()));
            pipeline.addBefore(last, "ski", handlers.get());
        } else {
            throw new IllegalStateException("ALPN chose an unknown protocol: " + protocol);
        }
    }
}
