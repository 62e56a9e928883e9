package io.elastikey.keyserver.http;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/** Native epoll where it loads (Linux x86_64 and aarch64), Java NIO everywhere else. */
public final class Transports {
    private Transports() {
    }

    public static EventLoopGroup eventLoopGroup(int threads, String name) {
        var factory = new io.netty.util.concurrent.DefaultThreadFactory(name, true);
        return Epoll.isAvailable() ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
    }

    public static Class<? extends ServerSocketChannel> serverChannel(EventLoopGroup group) {
        return group instanceof EpollEventLoopGroup ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** "epoll" or "nio", for the start-up log and metrics. */
    public static String name() {
        return Epoll.isAvailable() ? "epoll" : "nio";
    }
}
