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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The plain-HTTP admin endpoint: metrics and health for Prometheus and orchestrators, and the
 * {@link AdminRoute}s a server adds (the edge's {@code POST /purge}). It binds to loopback by
 * default ({@code admin.listen}) because it is not authenticated; it never shows key material,
 * only counts and timings, and no route may change more than a cache.
 *
 * <p>It runs on an event loop of its own, never on the server's request loops: a scrape computes every gauge and
 * writes some 100 KB of text (5-8 ms of a warm key server's CPU over a million keys, 40-120 ms while it was still
 * loading them), and every request on a loop it shared would wait for it, at each scrape of every Prometheus.
 */
public final class AdminServer implements AutoCloseable {
    private final EventLoopGroup loop;
    private final Channel channel;

    private AdminServer(EventLoopGroup loop, Channel channel) {
        this.loop = loop;
        this.channel = channel;
    }

    public static AdminServer start(InetSocketAddress address, Supplier<String> scrape, BooleanSupplier ready)
            throws InterruptedException {
        return start(address, scrape, ready, List.of());
    }

    /** As above, with {@code routes} added to the built-in paths (which they may not replace). */
    public static AdminServer start(InetSocketAddress address, Supplier<String> scrape, BooleanSupplier ready,
                                    List<AdminRoute> routes) throws InterruptedException {
        EventLoopGroup loop = Transports.newGroup(1, true, "admin");
        try {
            return new AdminServer(loop, bind(address, loop, new AdminHandler(scrape, ready, routes)));
        } catch (InterruptedException | RuntimeException e) {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static Channel bind(InetSocketAddress address, EventLoopGroup group, AdminHandler handler)
            throws InterruptedException {
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
        return Listeners.bind("admin.listen", address, bootstrap);
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
