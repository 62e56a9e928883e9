// AuthenticatedFront -- the first steps of every client connection, whatever protocol follows.
package io.elastikey.keyserver.tls;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.WritabilityReadGate;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;

/**
 * Connection limit, TLS with a required client certificate (the reloading context), idle timeout and its closer,
 * no reading from a client that leaves its answers unread, client authentication: what the SKI and the Keyless
 * endpoint put in front of their own protocol, so both refuse the same clients the same way. One per endpoint: its
 * connection limit and gauge count that endpoint's connections; its {@link ProtocolErrorHandler} goes last in the
 * endpoint's pipeline.
 */
public final class AuthenticatedFront {
    private final KeyServerConfig config;
    private final ReloadingSslContext tls;
    private final KeyServerMetrics metrics;
    private final CallerResolver callers;
    private final ConnectionLimiter limiter;
    private final ProtocolErrorHandler errors;

    /** @param openGauge the metric counting this endpoint's open connections */
    public AuthenticatedFront(KeyServerConfig config, ReloadingSslContext tls, KeyServerMetrics metrics,
                              CallerResolver callers, String openGauge, String description) {
        this.config = config;
        this.tls = tls;
        this.metrics = metrics;
        this.callers = callers;
        this.limiter = new ConnectionLimiter(config.maxConnections(), metrics::connectionRefused);
        metrics.gauge(openGauge, description, limiter, ConnectionLimiter::open);
        this.errors = new ProtocolErrorHandler(metrics::protocolError);
    }

    /** Adds the front's steps to a new connection's pipeline; the caller adds its protocol after them. */
    public void addTo(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        SslHandler ssl = tls.current().newHandler(channel.alloc());
        ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        pipeline.addLast("limit", limiter);
        pipeline.addLast("tls", ssl);
        pipeline.addLast("idle", new IdleConnectionCloser(config.idleTimeout()));
        pipeline.addLast("unread-answers", WritabilityReadGate.INSTANCE);
        pipeline.addLast("client", new ClientAuthenticationHandler(callers, metrics));
    }

    /** Where every exception of the endpoint's connections ends: counted, one rate-limited line. */
    public ProtocolErrorHandler errors() {
        return errors;
    }
}
