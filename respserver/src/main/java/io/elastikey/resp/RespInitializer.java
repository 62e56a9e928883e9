// RespInitializer -- the RESP connection's pipeline, one step per handler.
package io.elastikey.resp;

import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;

import java.net.InetSocketAddress;

import io.netty.channel.EventLoop;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In order: connection limit, TLS when configured, idle timeout and its closer, then bytes to a {@link RespRequest} per
 * command with every limit checked ({@link RespRequestDecoder}), and the {@link RespDispatcher} that
 * answers it on the event loop from memory or runs it on a worker thread. Replies are encoded bytes
 * ({@link ReplyEncoder}), so no outbound handler is needed.
 */
final class RespInitializer extends ChannelInitializer<SocketChannel> {
    private final RespLimits limits;
    private final ConnectionLimiter limiter;
    private final CommandRunner runner;
    private final Workers workers;
    private final Map<EventLoop, ReadyConnections> groups = new ConcurrentHashMap<>();
    private final AtomicLong connectionIds = new AtomicLong();
    private final AccessControl access;
    private final SslContext tls;
    private final UnfinishedRequests unfinished;

    RespInitializer(RespLimits limits, ConnectionLimiter limiter, CommandRunner runner, Workers workers,
                    AccessControl access, SslContext tls, UnfinishedRequests unfinished) {
        this.limits = limits;
        this.limiter = limiter;
        this.runner = runner;
        this.workers = workers;
        this.access = access;
        this.tls = tls;
        this.unfinished = unfinished;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline p = channel.pipeline();
        p.addLast("limit", limiter);
        if (tls != null) {
            p.addLast("tls", tls.newHandler(channel.alloc()));
        }
        if (!limits.idleTimeout().isZero()) {
            p.addLast("idle", new IdleConnectionCloser(limits.idleTimeout()));
        }
        p.addLast("decoder", new RespRequestDecoder(limits, unfinished));
        ReadyConnections group = groups.computeIfAbsent(channel.eventLoop(),
                loop -> new ReadyConnections(loop, workers, runner));
        p.addLast("dispatch", new RespDispatcher(runner, workers, group, limits.maxPipelined(),
                new ConnectionState(connectionIds.incrementAndGet(), access.initialUser(isLoopback(channel)))));
    }

    /** Whether the peer connects from a loopback address (the kernel's word, not the client's). */
    private static boolean isLoopback(SocketChannel channel) {
        InetSocketAddress peer = channel.remoteAddress();
        return peer != null && peer.getAddress() != null && peer.getAddress().isLoopbackAddress();
    }
}
