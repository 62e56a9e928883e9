// KeylessInitializer -- the pipeline of a Keyless connection.
package io.elastikey.keyserver.keyless;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.http.ClientAuthenticationHandler;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tls.ReloadingSslContext;
import io.elastikey.protocol.keyless.KeylessFrameDecoder;
import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.concurrent.TimeUnit;

/**
 * The Keyless pipeline, in order: connection limit, TLS (the SKI endpoint's context: client certificate required,
 * TLS 1.2 and 1.3, reloaded with it), flush consolidation (answers completed in one loop turn leave in few TLS
 * records), idle timeout and its closer, client authentication, the frame decoder, then
 * {@link KeylessRequestHandler}.
 */
public final class KeylessInitializer extends ChannelInitializer<SocketChannel> {
    /**
     * The longest body read: a padded request is 1 KB, an RSA-8192 payload 1 KB more; anything far longer is no
     * request a client makes, so it is skipped rather than buffered.
     */
    static final int MAX_BODY_LENGTH = 16 * 1024;
    private static final int FLUSHES_BEFORE_FORCED_FLUSH = 64;

    private final KeyServerConfig config;
    private final ReloadingSslContext tls;
    private final KeyServerMetrics metrics;
    private final ConnectionLimiter limiter;
    private final CallerResolver callers;
    private final SkiService service;
    private final RequestLog requestLog;

    public KeylessInitializer(KeyServerConfig config, ReloadingSslContext tls, KeyServerMetrics metrics,
                              CallerResolver callers, SkiService service, RequestLog requestLog) {
        this.config = config;
        this.tls = tls;
        this.metrics = metrics;
        this.limiter = new ConnectionLimiter(config.maxConnections(), metrics::connectionRefused);
        metrics.gauge("elastikey.keyless.connections.open", "Open Keyless client connections", limiter,
                ConnectionLimiter::open);
        this.callers = callers;
        this.service = service;
        this.requestLog = requestLog;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        SslHandler ssl = tls.current().newHandler(channel.alloc());
        ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        pipeline.addLast("limit", limiter);
        pipeline.addLast("tls", ssl);
        pipeline.addLast("flush", new FlushConsolidationHandler(FLUSHES_BEFORE_FORCED_FLUSH, true));
        pipeline.addLast("idle", new IdleStateHandler(0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        pipeline.addLast("idle-close", IdleConnectionCloser.INSTANCE);
        pipeline.addLast("client", new ClientAuthenticationHandler(callers, metrics));
        pipeline.addLast("frames", new KeylessFrameDecoder(MAX_BODY_LENGTH));
        pipeline.addLast("requests", new KeylessRequestHandler(service, requestLog,
                config.requestDeadline().toNanos(), config.keylessMaxInFlight()));
    }
}
