package io.elastikey.keyserver.http;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.keyserver.tls.AuthenticatedFront;
import io.elastikey.keyserver.tls.ReloadingSslContext;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/**
 * The SKI endpoint's pipeline, in order: the {@link AuthenticatedFront} (connection limit, TLS with a required client
 * certificate, idle timeout, client authentication), then ALPN picks HTTP/2 or HTTP/1.1, whose last step is
 * {@link SkiHttpHandler}; after everything, the {@link ProtocolErrorHandler} that every exception ends in.
 */
public final class KeyServerInitializer extends ChannelInitializer<SocketChannel> {
    private final KeyServerConfig config;
    private final AuthenticatedFront front;
    private final SkiService service;
    private final RequestLog requestLog;
    private final TicketKeyService ticketKeys;

    public KeyServerInitializer(KeyServerConfig config, ReloadingSslContext tls, KeyServerMetrics metrics,
                                CallerResolver callers, SkiService service, RequestLog requestLog,
                                TicketKeyService ticketKeys) {
        this.config = config;
        this.front = new AuthenticatedFront(config, tls, metrics, callers, "elastikey.connections.open",
                "Open client connections");
        this.service = service;
        this.requestLog = requestLog;
        this.ticketKeys = ticketKeys;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        front.addTo(channel);
        long deadline = config.requestDeadline().toNanos();
        ProtocolNegotiator.Limits limits = new ProtocolNegotiator.Limits(
                config.maxBodyBytes(), config.maxHeaderBytes(), config.maxStreams(), config.requestRead());
        ProtocolErrorHandler errors = front.errors();
        channel.pipeline().addLast("alpn", new ProtocolNegotiator(limits, errors, requestLog,
                () -> new SkiHttpHandler(service, requestLog, deadline, config.revealDenied(), errors,
                        ticketKeys)));
        channel.pipeline().addLast(ProtocolErrorHandler.NAME, errors);
    }
}
