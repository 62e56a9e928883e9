package io.elastikey.keyserver.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;

import java.util.function.Supplier;

/**
 * Completes the pipeline once ALPN has chosen the protocol. Both end in the same
 * {@link SkiHttpHandler} seeing full HTTP/1-style requests: over HTTP/2 each stream is a child
 * channel whose frames are converted to HTTP objects, so the SKI logic exists once.
 * Clients that offer no ALPN get HTTP/1.1.
 */
final class ProtocolNegotiator extends ApplicationProtocolNegotiationHandler {
    private static final int RST_FRAMES_PER_STREAM = 16;

    private final Limits limits;
    private final Supplier<SkiHttpHandler> handlers;

    /** The request-size limits both protocols enforce. */
    record Limits(int maxBodyBytes, int maxHeaderBytes, int maxStreams) {
    }

    ProtocolNegotiator(Limits limits, Supplier<SkiHttpHandler> handlers) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.limits = limits;
        this.handlers = handlers;
    }

    /** Counted and logged by {@link ClientAuthenticationHandler}; a stack trace per bad client is noise. */
    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
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
            pipeline.addLast("h2", Http2FrameCodecBuilder.forServer().initialSettings(settings)
                    .decoderEnforceMaxRstFramesPerWindow(RST_FRAMES_PER_STREAM * limits.maxStreams(), 10)
                    .build());
            pipeline.addLast("h2-streams", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                @Override
                protected void initChannel(Http2StreamChannel stream) {
                    stream.pipeline().addLast(
                            new Http2StreamFrameToHttpObjectCodec(true),
                            new OversizedRequestAggregator(limits.maxBodyBytes()),
                            handlers.get());
                }
            }));
        } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
            pipeline.addLast("http", new HttpServerCodec(4096, limits.maxHeaderBytes(), 8192));
            pipeline.addLast("keep-alive", new HttpServerKeepAliveHandler());
            pipeline.addLast("aggregate", new OversizedRequestAggregator(limits.maxBodyBytes()));
            pipeline.addLast("ski", handlers.get());
        } else {
            throw new IllegalStateException("ALPN chose an unknown protocol: " + protocol);
        }
    }
}
