package io.elastikey.edge.http;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.content.AnswerBacklogLimit;
import io.elastikey.edge.tls.EdgeTls;
import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;

import java.util.function.Supplier;

/**
 * The edge's pipeline, in the order a connection meets it:
 *
 * <pre>
 *   limit       ConnectionLimiter        refuse beyond limits.connections, before any TLS work
 *   tls         SslHandler (BoringSSL)   handshake; the private-key step goes to the key server
 *   handshake   HandshakeRecorder        full or resumed, and how long it took (then leaves)
 *   idle        IdleConnectionCloser: nothing read or written for the idle timeout: closed
 *   alpn        EdgeProtocolNegotiator   h2 or http/1.1 (with request-read timers), then the answer backlog
 *                                        limit and the content handler
 *   protocol-errors ProtocolErrorHandler every exception ends here: one counted line, no stack trace
 * </pre>
 */
public final class EdgeInitializer extends ChannelInitializer<SocketChannel> {
    private final EdgeConfig config;
    private final EdgeTls tls;
    private final EdgeMetrics metrics;
    private final ConnectionLimiter limiter;
    private final Supplier<ChannelHandler> content;
    private final ProtocolErrorHandler errors;
    private final AnswerBacklogLimit backlog;

    public EdgeInitializer(EdgeConfig config, EdgeTls tls, EdgeMetrics metrics, ProtocolErrorHandler errors,
                           Supplier<ChannelHandler> content) {
        this.config = config;
        this.tls = tls;
        this.metrics = metrics;
        this.content = content;
        this.errors = errors;
        this.limiter = new ConnectionLimiter(config.maxConnections(), metrics::connectionRefused);
        metrics.gauge("elastikey.edge.connections.open", "Open client connections", limiter, ConnectionLimiter::open);
        this.backlog = new AnswerBacklogLimit(config.answerBacklog(), config.answerBacklogTotal());
        metrics.gauge("elastikey.edge.answers.unsent.bytes", "Bytes of answers written and not yet taken by clients",
                backlog, AnswerBacklogLimit::unsent);
        metrics.counter("elastikey.edge.answers.refused", "Answers not sent: their client had too many unread "
                + "(limits.answer-backlog) or the edge did (limits.answer-backlog-total)", backlog,
                AnswerBacklogLimit::refused);
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        SslHandler ssl = tls.context().newHandler(channel.alloc());
        ssl.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("limit", limiter);
        pipeline.addLast("tls", ssl);
        pipeline.addLast("handshake", new HandshakeRecorder(metrics, tls.keyMethod()));
        pipeline.addLast("idle", new IdleConnectionCloser(config.idleTimeout()));
        pipeline.addLast("alpn", new EdgeProtocolNegotiator(config.maxHeaderBytes(), config.maxBodyBytes(),
                config.requestRead(), errors, backlog, content));
        pipeline.addLast(ProtocolErrorHandler.NAME, errors);
    }
}
