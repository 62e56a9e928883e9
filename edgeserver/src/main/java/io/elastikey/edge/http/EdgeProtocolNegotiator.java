package io.elastikey.edge.http;

import io.elastikey.edge.content.AnswerBacklogLimit;
import io.elastikey.edge.content.ContentHandler;
import io.elastikey.protocol.http.OversizedRequestAggregator;
import io.elastikey.protocol.http.RequestReadTimer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.QuietProtocolNegotiator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Completes the pipeline once ALPN has chosen HTTP/2 or HTTP/1.1. Both end in the same content handler
 * seeing whole HTTP/1-style requests: over HTTP/2 each stream is a child channel whose frames are converted,
 * so the proxy and cache logic exist once. Clients that offer no ALPN get HTTP/1.1.
 */
final class EdgeProtocolNegotiator extends QuietProtocolNegotiator {
    private static final Logger log = LoggerFactory.getLogger(EdgeProtocolNegotiator.class);
    private static final int MAX_STREAMS = 256;

    private final int maxHeaderBytes;
    private final int maxBodyBytes;
    private final Duration requestRead;
    private final ProtocolErrorHandler errors;
    private final AnswerBacklogLimit backlog;
    private final Supplier<ChannelHandler> content;

    EdgeProtocolNegotiator(int maxHeaderBytes, int maxBodyBytes, Duration requestRead, ProtocolErrorHandler errors,
                           AnswerBacklogLimit backlog, Supplier<ChannelHandler> content) {
        this.maxHeaderBytes = maxHeaderBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.requestRead = requestRead;
        this.errors = errors;
        this.backlog = backlog;
        this.content = content;
    }

    /** Counted by {@link HandshakeRecorder} and logged by the key method; a stack trace per client is noise. */
    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("handshake with {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        ChannelPipeline pipeline = ctx.pipeline();
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            Http2Settings settings = Http2Settings.defaultSettings()
                    .maxConcurrentStreams(MAX_STREAMS)
                    .maxHeaderListSize(maxHeaderBytes);
            String last = ProtocolErrorHandler.NAME;
            pipeline.addBefore(last, "h2-frames", RequestReadTimer.http2Connection(requestRead, errors));
            // Required pseudo-headers checked by the codec: its stream codec would read a request without :method as
            // trailers, and serve one without :scheme.
            pipeline.addBefore(last, "h2", Http2FrameCodecBuilder.forServer().initialSettings(settings)
                    .validateRequiredPseudoHeaders(true).build());
            pipeline.addBefore(last, "h2-streams", new Http2MultiplexHandler(
                    new ChannelInitializer<Http2StreamChannel>() {
                        @Override
                        protected void initChannel(Http2StreamChannel stream) {
                            stream.pipeline().addLast(
                                    StreamRequestLineCheck.INSTANCE,
                                    new Http2StreamFrameToHttpObjectCodec(true),
                                    RequestReadTimer.http2Stream(requestRead, errors),
                                    new HttpObjectAggregator(maxBodyBytes),
                                    backlog,
                                    content.get(),
                                    errors);
                        }
                    }));
        } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
            String last = ProtocolErrorHandler.NAME;
            pipeline.addBefore(last, "http", new HttpServerCodec(ContentHandler.MAX_REQUEST_LINE, maxHeaderBytes, 8192));
            RequestReadTimer.installHttp1(pipeline, "http", requestRead, errors);
            pipeline.addBefore(last, "aggregate", new OversizedRequestAggregator(maxBodyBytes));
            pipeline.addBefore(last, "backlog", backlog);
            pipeline.addBefore(last, "content", content.get());
        } else {
            throw new IllegalStateException("ALPN chose an unknown protocol: " + protocol);
        }
    }
}
