// KeylessConnection -- one client connection to a Keyless server: made when needed, made again after it closes.
package io.elastikey.protocol.keyless;

import io.elastikey.protocol.net.Transports;
import io.elastikey.protocol.ski.SkiTransportException;
import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A TLS connection carrying pipelined requests. Its pipeline: TLS, flush consolidation (many requests written in one
 * loop turn leave in few TLS records), {@link KeylessFrameDecoder}, {@link KeylessClientHandler}. The connect future
 * completes once the TLS handshake has, and fails with {@link Kind#CONNECT_FAILED} and the reason.
 */
final class KeylessConnection {
    private final Bootstrap bootstrap;
    private final SslContext sslContext;
    private final InetSocketAddress address;
    private final String serverName;
    private final Duration requestTimeout;
    private CompletableFuture<Channel> current;
    private boolean closed;

    KeylessConnection(EventLoopGroup group, SslContext sslContext, InetSocketAddress address, String serverName,
                      Duration connectTimeout, Duration requestTimeout) {
        this.sslContext = sslContext;
        this.requestTimeout = requestTimeout;
        this.address = address;
        this.serverName = serverName;
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannelFor(group))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .option(ChannelOption.TCP_NODELAY, true);
    }

    /** The connected channel, connecting first when there is none or the last one closed. */
    synchronized CompletableFuture<Channel> channel() {
        if (closed) {
            return CompletableFuture.failedFuture(new SkiTransportException(Kind.CLIENT_CLOSED, "client closed"));
        }
        if (current == null || current.isCompletedExceptionally()
                || current.isDone() && !current.getNow(null).isActive()) {
            current = open();
        }
        return current;
    }

    boolean isUp() {
        CompletableFuture<Channel> c;
        synchronized (this) {
            c = current;
        }
        return c != null && c.isDone() && !c.isCompletedExceptionally() && c.getNow(null).isActive();
    }

    void send(KeylessPending pending) {
        CompletableFuture<Channel> ready = channel();
        Channel up = ready.isDone() && !ready.isCompletedExceptionally() ? ready.getNow(null) : null;
        if (up != null) {
            up.writeAndFlush(pending);
            return;
        }
        ready.whenComplete((channel, failure) -> {
            if (failure != null) {
                pending.fail(failure instanceof SkiTransportException t ? t
                        : new SkiTransportException(Kind.CONNECT_FAILED, failure.getMessage(), failure));
            } else {
                channel.writeAndFlush(pending);
            }
        });
    }

    void close() {
        CompletableFuture<Channel> c;
        synchronized (this) {
            closed = true;
            c = current;
        }
        if (c != null) {
            c.thenAccept(Channel::close);
        }
    }

    private CompletableFuture<Channel> open() {
        CompletableFuture<Channel> ready = new CompletableFuture<>();
        bootstrap.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                SslHandler ssl = sslContext.newHandler(channel.alloc(), serverName, address.getPort());
                channel.pipeline().addLast("tls", ssl)
                        .addLast("flush", new FlushConsolidationHandler(256, true))
                        .addLast("frames", new KeylessFrameDecoder(KeylessCodec.MAX_BODY_LENGTH))
                        .addLast("answers", new KeylessClientHandler(requestTimeout));
                ssl.handshakeFuture().addListener(f -> {
                    if (f.isSuccess()) {
                        ready.complete(channel);
                    } else {
                        ready.completeExceptionally(connectFailed("TLS handshake failed: " + f.cause().getMessage(),
                                f.cause()));
                        channel.close();
                    }
                });
            }
        }).connect(address).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                ready.completeExceptionally(connectFailed("cannot connect to " + address + ": "
                        + f.cause().getMessage(), f.cause()));
            }
        });
        return ready;
    }

    private static SkiTransportException connectFailed(String message, Throwable cause) {
        return new SkiTransportException(Kind.CONNECT_FAILED, message, cause);
    }
}
