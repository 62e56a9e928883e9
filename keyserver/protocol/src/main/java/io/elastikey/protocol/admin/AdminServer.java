package io.elastikey.protocol.admin;

import io.elastikey.protocol.net.Listeners;
import io.elastikey.protocol.net.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The plain-HTTP admin endpoint: metrics and health for Prometheus and orchestrators, and the
 * {@link AdminRoute}s a server adds (the edge's {@code POST /purge}). It binds to loopback by
 * default ({@code admin.listen}) because it is not authenticated; it never shows key material,
 * only counts and timings, and no route may change more than a cache.
 */
public final class AdminServer implements AutoCloseable {
    private final Channel channel;

    private AdminServer(Channel channel) {
        this.channel = channel;
    }

    public static AdminServer start(InetSocketAddress address, EventLoopGroup group, Supplier<String> scrape,
                                    BooleanSupplier ready) throws InterruptedException {
        return start(address, group, scrape, ready, List.of());
    }

    /** As above, with {@code routes} added to the built-in paths (which they may not replace). */
    public static AdminServer start(InetSocketAddress address, EventLoopGroup group, Supplier<String> scrape,
                                    BooleanSupplier ready, List<AdminRoute> routes) throws InterruptedException {
        AdminHandler handler = new AdminHandler(scrape, ready, routes);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannelFor(group))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(
                                new ReadTimeoutHandler(30),
                                new HttpServerCodec(4096, 8192, 8192),
                                new HttpObjectAggregator(4096),
                                handler);
                    }
                });
        return new AdminServer(Listeners.bind("admin.listen", address, bootstrap));
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
