// Listeners -- binds a server's listening socket; a failure names the setting, the address and the reason.
package io.elastikey.protocol.net;

import io.elastikey.protocol.config.ConfigException;
import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Netty reports a port in use as {@code bind(..) failed with error(-98): Address already in use}: true, but an
 * operator of a server with two or three listeners is left to guess which one. Every server binds through here, so
 * the failure says {@code admin.listen: cannot listen on 127.0.0.1:9080: address already in use}.
 */
public final class Listeners {
    /** Netty's native transport prefixes the OS message with the call and the negated errno. */
    private static final Pattern NATIVE_PREFIX = Pattern.compile("^.*failed with error\\(-?\\d+\\):\\s*");

    private Listeners() {
    }

    /**
     * Binds {@code bootstrap} to {@code address} and waits for it.
     *
     * @param setting the setting or option that named the address, for the error message
     * @throws ConfigException naming the setting, the address and the reason, when the bind fails
     */
    public static Channel bind(String setting, InetSocketAddress address, AbstractBootstrap<?, ?> bootstrap)
            throws InterruptedException {
        ChannelFuture bound = bootstrap.bind(address).await();
        if (!bound.isSuccess()) {
            throw new ConfigException(setting + ": cannot listen on " + text(address) + ": " + reason(bound.cause()),
                    bound.cause());
        }
        return bound.channel();
    }

    /**
     * Binds one listening socket per event loop of {@code loops}, all on one port, each accepting on its own loop and
     * serving there what it accepts. With a thread that only accepts, every connection costs that thread a wake-up
     * and the loop a hand-off (a task queued, the loop woken); at thousands of new TLS connections a second, as an
     * edge sees, that was 7% of the edge's CPU. The kernel spreads new connections over the sockets
     * ({@code SO_REUSEPORT}, by a hash of the client's address and port).
     *
     * <p>{@code SO_REUSEPORT} would also let the sockets join another process of this user that listens on the port
     * the same way (a second server started by mistake), so the address is first bound by a plain socket, which
     * fails when anything listens there, as a single listener would. That bind also picks the port when
     * {@code address} asks for port 0. Without the epoll transport (Netty's NIO has no {@code SO_REUSEPORT}): one
     * socket, accepting on one of the loops.
     *
     * @param settings the server's options and child handler, applied to each socket's bootstrap
     * @return the sockets, at least one; all have the same local address
     * @throws ConfigException naming the setting, the address and the reason, when a bind fails
     */
    public static List<Channel> bindOnEachLoop(String setting, InetSocketAddress address, EventLoopGroup loops,
                                               UnaryOperator<ServerBootstrap> settings) throws InterruptedException {
        if (!(loops instanceof EpollEventLoopGroup)) {
            return List.of(bind(setting, address, settings.apply(new ServerBootstrap().group(loops, loops)
                    .channel(Transports.serverChannelFor(loops)))));
        }
        InetSocketAddress free = probe(setting, address);
        List<Channel> bound = new ArrayList<>();
        try {
            for (EventExecutor executor : loops) {
                EventLoop loop = (EventLoop) executor;
                bound.add(bind(setting, free, settings.apply(new ServerBootstrap().group(loop, loop)
                        .channel(Transports.serverChannelFor(loops)).option(EpollChannelOption.SO_REUSEPORT, true))));
            }
            return bound;
        } catch (InterruptedException | RuntimeException e) {
            bound.forEach(Channel::close);
            throw e;
        }
    }

    /**
     * Binds {@code address} without listening, to see that it is free; the address bound (the port picked). Also for
     * a server that does long work before it listens (a warm-up), so that a port in use fails its start at once.
     *
     * @throws ConfigException naming the setting, the address and the reason, as {@link #bind} does
     */
    public static InetSocketAddress probe(String setting, InetSocketAddress address) {
        try (SocketChannel probe = SocketChannel.open()) {
            probe.setOption(StandardSocketOptions.SO_REUSEADDR, true); // connections in TIME_WAIT do not count
            probe.bind(address);
            return (InetSocketAddress) probe.getLocalAddress();
        } catch (IOException e) {
            throw new ConfigException(setting + ": cannot listen on " + text(address) + ": " + reason(e), e);
        }
    }

    /** The reason of a failed bind: the operating system's words, without Netty's prefix. */
    static String reason(Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String reason = NATIVE_PREFIX.matcher(message).replaceFirst("");
        reason = reason.isEmpty() ? message : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
        if (reason.startsWith("address already in use")) {
            return "address already in use (another process listens on that port)";
        }
        return reason;
    }

    private static String text(InetSocketAddress address) {
        String host = address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
