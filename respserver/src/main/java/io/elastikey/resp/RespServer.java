// RespServer -- a KeyValueStore (normally an ElasticStore) served to Redis clients over a RESP2 subset.
package io.elastikey.resp;

import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.Listeners;
import io.elastikey.protocol.net.Transports;
import io.elastikey.store.KeyValueStore;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves a store to redis-cli, redis-benchmark and Redis client libraries: the commands of
 * {@code docs/resp.md} over RESP2 on TCP. Event loops (epoll where available) only frame bytes
 * and write replies; store calls run on a bounded pool of worker threads, one task at a time per
 * connection (see {@link RespDispatcher}). The server does not own the store: closing the server
 * leaves the store open.
 */
public final class RespServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RespServer.class);
    /**
     * When a connection stops reading and running batches (RespDispatcher): above 256 KiB of replies not yet taken
     * by the socket, again below 128 KiB. Netty's default (64 KiB high) was crossed by every flush of sixteen
     * pipelined 4 KB GETs, redis-benchmark's {@code -P 16 -d 4096}: two writability changes and two epoll updates
     * per batch, some 4% of the server's CPU, for a client that was reading all along.
     */
    static final WriteBufferWaterMark REPLY_WATER_MARK = new WriteBufferWaterMark(128 << 10, 256 << 10);

    private final Channel channel;
    private final EventLoopGroup group;
    private final Workers workers;
    private final ConnectionLimiter limiter;

    private RespServer(Channel channel, EventLoopGroup group, Workers workers, ConnectionLimiter limiter) {
        this.channel = channel;
        this.group = group;
        this.workers = workers;
        this.limiter = limiter;
    }

    /**
     * Binds {@code address} (port 0: any free port) and starts serving {@code store}.
     *
     * @param eventLoops event-loop threads (1 is plenty on a small machine; they never block)
     */
    public static RespServer start(KeyValueStore store, InetSocketAddress address, RespLimits limits,
                                   int eventLoops) throws InterruptedException {
        return start(store, address, limits, eventLoops, RespOptions.defaults());
    }

    /**
     * Binds {@code address} and serves {@code store} with {@code options}: users and AUTH, TLS, the
     * bounds of ELASTIC.RESIZE. Without users, logs one WARN: anyone who reaches the port may read and
     * write, and administration is left to loopback peers.
     */
    public static RespServer start(KeyValueStore store, InetSocketAddress address, RespLimits limits,
                                   int eventLoops, RespOptions options) throws InterruptedException {
        limits.validate();
        AtomicLong refused = new AtomicLong();
        ConnectionLimiter limiter = new ConnectionLimiter(limits.maxConnections(), refused::incrementAndGet);
        Workers workers = new Workers(limits.readThreads(), limits.workerThreads());
        EventLoopGroup group = Transports.newGroup(eventLoops, true, "resp-io");
        try {
            AtomicInteger port = new AtomicInteger(address.getPort());
            AccessControl access = new AccessControl(options.users());
            ServerCommands server = new ServerCommands(store, port::get, limiter::open, access,
                    options.shutdown());
            UpdateCommands updates = new UpdateCommands(store);
            CommandRunner runner = new CommandRunner(new StoreCommands(store, options.resizeBounds(), updates), updates,
                    server, access);
            Channel channel = Listeners.bind("--resp", address, new ServerBootstrap()
                    .group(group)
                    .channel(Transports.serverChannelFor(group))
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, REPLY_WATER_MARK)
                    .childHandler(new RespInitializer(limits, limiter, runner, workers, access, options.tls(),
                            new UnfinishedRequests(UnfinishedRequests.DEFAULT_BUDGET))));
            port.set(((InetSocketAddress) channel.localAddress()).getPort());
            LOG.info("RESP server on {} ({}, {} read and {} write threads, {}, {}, {})", channel.localAddress(),
                    Transports.name(group), limits.readThreads(), limits.workerThreads(),
                    options.tls() != null ? "TLS" : "no TLS", options.users(), options.resizeBounds());
            if (!access.required()) {
                LOG.warn("RESP server on {} runs without AUTH: whoever reaches the port may read and write every "
                        + "key; ELASTIC.RESIZE is allowed from loopback only. Set --requirepass or --user.",
                        channel.localAddress());
            }
            return new RespServer(channel, group, workers, limiter);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            workers.shutdown(0);
            throw e;
        }
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Connections open now. */
    public int connections() {
        return limiter.open();
    }

    /** Stops accepting, closes every connection and waits for running commands to finish. */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdown(10);
    }
}
