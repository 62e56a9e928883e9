// Transports -- epoll where its native library loads, NIO otherwise; the channel classes that fit a group.
package io.elastikey.protocol.net;

import java.util.concurrent.ThreadFactory;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Netty's native epoll transport saves a copy and a system call or two per read against NIO, and is there on Linux
 * x86-64 and ARM64; elsewhere, or when its library cannot load (a noexec temp directory), NIO does the same job.
 * A channel must match its group's kind, so with a caller's group the channel class follows the group.
 */
public final class Transports {
    private Transports() {
    }

    /** Whether the epoll transport can be used in this JVM. */
    public static boolean nativeAvailable() {
        return Epoll.isAvailable();
    }

    /** A new group of {@code threads} daemon event loops, epoll when preferred and available. */
    public static EventLoopGroup newGroup(int threads, boolean preferNative, String threadPrefix) {
        ThreadFactory threadFactory = new DefaultThreadFactory(threadPrefix, true);
        if (preferNative && nativeAvailable()) {
            return new EpollEventLoopGroup(threads, threadFactory);
        }
        return new NioEventLoopGroup(threads, threadFactory);
    }

    /** The client socket channel class for {@code group}'s kind of event loop. */
    public static Class<? extends SocketChannel> socketChannelFor(EventLoopGroup group) {
        if (nativeAvailable() && group instanceof EpollEventLoopGroup) {
            return EpollSocketChannel.class;
        }
        return NioSocketChannel.class;
    }

    /** The server socket channel class for {@code group}'s kind of event loop. */
    public static Class<? extends ServerSocketChannel> serverChannelFor(EventLoopGroup group) {
        if (nativeAvailable() && group instanceof EpollEventLoopGroup) {
            return EpollServerSocketChannel.class;
        }
        return NioServerSocketChannel.class;
    }

    /** {@code "epoll"} or {@code "nio"}, for logs. */
    public static String name(EventLoopGroup group) {
        return socketChannelFor(group) == EpollSocketChannel.class ? "epoll" : "nio";
    }
}
