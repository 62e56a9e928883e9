package io.elastikey.edge.content;

import io.elastikey.protocol.net.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/** The edge's HTTP/1.1 pipeline without TLS: {@code HttpServerCodec, HttpObjectAggregator, ContentHandler}. */
final class FrontServer implements AutoCloseable {
    private final EventLoopGroup group = Transports.newGroup(2, true, "front");
    private final Channel server;

    FrontServer(ChannelHandler content) {
        server = new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannelFor(group))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), content);
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).syncUninterruptibly().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
