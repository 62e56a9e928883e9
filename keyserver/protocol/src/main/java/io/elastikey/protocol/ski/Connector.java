// Connector -- opens one TLS connection to the key server and hands it over once ALPN has chosen the expected HTTP.
package io.elastikey.protocol.ski;

import io.elastikey.protocol.net.Transports;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

/**
 * The part of a connection both HTTP versions share: TCP connect, TLS handshake (the connect timeout covers both),
 * and the ALPN check. A pool gives it the handlers of its HTTP version ({@code installer}), which return a future of
 * the moment the connection may carry requests (HTTP/2: the server's first SETTINGS, so that its stream limit is known
 * before the first stream opens). The connect future completes with the channel then, or fails with
 * {@link Kind#CONNECT_FAILED} and the reason: refused, timed out, a certificate not trusted, or a server that chose
 * another HTTP version.
 *
 * <p>Before the handshake the pipeline is {@code SslHandler, Negotiation}; Negotiation replaces itself with the
 * installer's handlers.
 */
final class Connector {
    private final Bootstrap bootstrap;
    private final SslContext sslContext;
    private final InetSocketAddress address;
    private final String serverName;
    private final SkiHttpVersion version;
    private final long connectTimeoutMillis;

    Connector(EventLoopGroup group, SslContext sslContext, InetSocketAddress address, SkiClientOptions options) {
        this.sslContext = sslContext;
        this.address = address;
        this.serverName = options.serverName() != null ? options.serverName() : address.getHostString();
        this.version = options.httpVersion();
        this.connectTimeoutMillis = options.connectTimeout().toMillis();
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannelFor(group))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true);
    }

    /** The value of {@code :authority} and {@code Host}. */
    String authority() {
        return serverName + ":" + address.getPort();
    }

    /** Opens a connection whose HTTP handlers {@code installer} adds once the handshake has chosen our version. */
    CompletableFuture<Channel> connect(Function<ChannelPipeline, CompletableFuture<?>> installer) {
        CompletableFuture<Channel> ready = new CompletableFuture<>();
        ChannelFuture connected = bootstrap.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                SslHandler ssl = sslContext.newHandler(channel.alloc(), serverName, address.getPort());
                ssl.setHandshakeTimeoutMillis(connectTimeoutMillis);
                ssl.handshakeFuture().addListener(handshake -> {
                    if (!handshake.isSuccess()) {
                        ready.completeExceptionally(new SkiTransportException(Kind.CONNECT_FAILED,
                                "TLS handshake with " + address + " failed", handshake.cause()));
                    }
                });
                channel.pipeline().addLast(ssl, new Negotiation(ready, installer));
            }
        }).connect(address);
        connected.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                ready.completeExceptionally(new SkiTransportException(Kind.CONNECT_FAILED,
                        "cannot connect to " + address, f.cause()));
            } else {
                f.channel().closeFuture().addListener(closed -> ready.completeExceptionally(new SkiTransportException(
                        Kind.CONNECT_FAILED, "connection to " + address + " closed during the TLS handshake")));
            }
        });
        return ready;
    }

    /** Waits for the handshake, checks the ALPN choice and installs the HTTP handlers. */
    private final class Negotiation extends ApplicationProtocolNegotiationHandler {
        private final CompletableFuture<Channel> ready;
        private final Function<ChannelPipeline, CompletableFuture<?>> installer;

        Negotiation(CompletableFuture<Channel> ready, Function<ChannelPipeline, CompletableFuture<?>> installer) {
            super(version == SkiHttpVersion.HTTP_1_1 ? version.alpnName() : "(none)");
            this.ready = ready;
            this.installer = installer;
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (!version.alpnName().equals(protocol)) {
                ready.completeExceptionally(new SkiTransportException(Kind.CONNECT_FAILED, "the server at " + address
                        + " chose " + protocol + " but this client speaks " + version.alpnName()
                        + " (is the SslContext built for HTTP/" + version.label() + "?)"));
                ctx.close();
                return;
            }
            Channel channel = ctx.channel();
            installer.apply(ctx.pipeline()).thenRun(() -> ready.complete(channel));
        }

        /** Already reported through the handshake future; only closes, where the superclass would also log. */
        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
