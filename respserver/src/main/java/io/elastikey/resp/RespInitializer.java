// RespInitializer -- the RESP connection's pipeline, one step per handler.
package io.elastikey.resp;

import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.timeout.IdleStateHandler;

import io.netty.channel.EventLoop;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In order: connection limit, idle timeout and its closer, then bytes to RESP parts ({@link RedisDecoder}, lines bounded by {@code maxInlineBytes}), the shape and size
 * checks ({@link RespFrameGuard}), bulk strings and arrays assembled by Netty's aggregators, a
 * {@link RespRequest} per command ({@link RespCommandDecoder}), and the {@link RespDispatcher} that
 * runs it on a worker thread. Replies come back as encoded bytes ({@link ReplyEncoder}, on the worker),
 * so no outbound handler is needed.
 */
final class RespInitializer extends ChannelInitializer<SocketChannel> {
    private final RespLimits limits;
    private final ConnectionLimiter limiter;
    private final CommandRunner runner;
    private final Workers workers;
    private final Map<EventLoop, ReadyConnections> groups = new ConcurrentHashMap<>();
    private final AtomicLong connectionIds = new AtomicLong();

    RespInitializer(RespLimits limits, ConnectionLimiter limiter, CommandRunner runner, Workers workers) {
        this.limits = limits;
        this.limiter = limiter;
        this.runner = runner;
        this.workers = workers;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline p = channel.pipeline();
        p.addLast("limit", limiter);
        if (!limits.idleTimeout().isZero()) {
            p.addLast("idle", new IdleStateHandler(0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
            p.addLast("idle-close", IdleConnectionCloser.INSTANCE);
        }
        p.addLast("decoder", new RedisDecoder(limits.maxInlineBytes(), FixedRedisMessagePool.INSTANCE, true));
        p.addLast("guard", new RespFrameGuard(limits));
        p.addLast("bulk", new RedisBulkStringAggregator());
        p.addLast("array", new RedisArrayAggregator(limits.maxArrayLength(), 1)); // limits as the guard: flat arrays
        p.addLast("command", new RespCommandDecoder());
        ReadyConnections group = groups.computeIfAbsent(channel.eventLoop(),
                loop -> new ReadyConnections(loop, workers, runner));
        p.addLast("dispatch", new RespDispatcher(runner, workers, group, limits.maxPipelined(),
                new ConnectionState(connectionIds.incrementAndGet())));
    }
}
