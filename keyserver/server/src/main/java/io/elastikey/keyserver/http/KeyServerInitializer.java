package io.elastikey.keyserver.http;

import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tls.ReloadingSslContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;

/**
 * The key server's pipeline, in order: connection limit, TLS (client certificate required),
 * idle timeout and its closer, client authentication, then ALPN picks HTTP/2 or HTTP/1.1, whose last step is
 * {@link SkiHttpHandler}; after everything, the {@link ProtocolErrorHandler} that every exception ends in.
 */
public final class KeyServerInitializer extends ChannelInitializer<SocketChannel> {
    private final KeyServerConfig config;
    private final ReloadingSslContext tls;
    private final KeyServerMetrics metrics;
    private final ConnectionLimiter limiter;
    private final CallerResolver callers;
    private final SkiService service;
    private final RequestLog requestLog;
    private final ProtocolErrorHandler errors;

    public KeyServerInitializer(KeyServerConfig config, ReloadingSslContext tls, KeyServerMetrics metrics,
                                CallerResolver callers, SkiService service, RequestLog requestLog) {
        this.config = config;
        this.tls = tls;
        this.metrics = metrics;
        this.limiter = new ConnectionLimiter(config.maxConnections(), metrics::connectionRefused);
        metrics.gauge("elastikey.connections.open", "Open client connections", limiter, ConnectionLimiter::open);
        this.callers = callers;
        this.service = service;
        this.requestLog = requestLog;
        this.errors = new ProtocolErrorHandler(metrics::protocolError);
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        SslHandler ssl = tls.current().newHandler(channel.alloc());
        ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        long deadline = config.requestDeadline().toNanos();
        ProtocolNegotiator.Limits limits = new ProtocolNegotiator.Limits(
                config.maxBodyBytes(), config.maxHeaderBytes(), config.maxStreams(), config.requestRead());
        pipeline.addLast("limit", limiter);
        pipeline.addLast("tls", ssl);
        pipeline.addLast("idle", new IdleStateHandler(0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        pipeline.addLast("idle-close", IdleConnectionCloser.INSTANCE);
        pipeline.addLast("client", new ClientAuthenticationHandler(callers, metrics));
        pipeline.addLast("alpn", new ProtocolNegotiator(limits, errors,
                () -> new SkiHttpHandler(service, requestLog, deadline, config.revealDenied(), errors)));
        pipeline.addLast(ProtocolErrorHandler.NAME, errors);
    }
}
