// KeylessInitializer -- the pipeline of a Keyless connection.
package io.elastikey.keyserver.keyless;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.keyserver.tls.AuthenticatedFront;
import io.elastikey.keyserver.tls.ReloadingSslContext;
import io.elastikey.protocol.keyless.KeylessFrameDecoder;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * The Keyless pipeline, in order: the {@link AuthenticatedFront} (connection limit, the SKI endpoint's TLS context
 * with a required client certificate, reloaded with it, idle timeout, client authentication), flush consolidation
 * (answers completed in one loop turn leave in few TLS records), the frame decoder, {@link KeylessRequestHandler},
 * and last the {@link ProtocolErrorHandler} that every exception ends in.
 */
public final class KeylessInitializer extends ChannelInitializer<SocketChannel> {
    /**
     * The longest body read: a padded request is 1 KB, an RSA-8192 payload 1 KB more; anything far longer is no
     * request a client makes, so it is skipped rather than buffered.
     */
    static final int MAX_BODY_LENGTH = 16 * 1024;
    private static final int FLUSHES_BEFORE_FORCED_FLUSH = 64;

    private final KeyServerConfig config;
    private final AuthenticatedFront front;
    private final SkiService service;
    private final RequestLog requestLog;
    private final TicketKeyService ticketKeys;

    public KeylessInitializer(KeyServerConfig config, ReloadingSslContext tls, KeyServerMetrics metrics,
                              CallerResolver callers, SkiService service, RequestLog requestLog,
                              TicketKeyService ticketKeys) {
        this.config = config;
        this.front = new AuthenticatedFront(config, tls, metrics, callers, "elastikey.keyless.connections.open",
                "Open Keyless client connections");
        this.service = service;
        this.requestLog = requestLog;
        this.ticketKeys = ticketKeys;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        front.addTo(channel);
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast("flush", new FlushConsolidationHandler(FLUSHES_BEFORE_FORCED_FLUSH, true));
        pipeline.addLast("frames", new KeylessFrameDecoder(MAX_BODY_LENGTH));
        pipeline.addLast("requests", new KeylessRequestHandler(service, requestLog, ticketKeys,
                config.requestDeadline().toNanos(), config.keylessMaxInFlight()));
        pipeline.addLast(ProtocolErrorHandler.NAME, front.errors());
    }
}
