// OriginPool -- the keep-alive connections one event loop holds to the origin, and the calls waiting for one.
package io.elastikey.edge.content;

import io.elastikey.protocol.net.RateLimitedLog;
import io.elastikey.protocol.net.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Everything here runs on one event loop, the loop of the client connections whose requests it carries, so it
 * needs no lock and an answer reaches the client without changing threads. That is also why this is not Netty's
 * {@code FixedChannelPool}: its acquire and release go through promises and health-check futures to be safe
 * across threads, which a loop-confined pool does not need, and it cannot express the two rules that matter
 * here: a connection is returned reusable or not (per the origin's {@code Connection} header), and a call that
 * loses a reused connection before its answer may be retried once.
 *
 * <p>A call takes the most recently used idle connection (so the others can reach their idle timeout and close),
 * else opens one while fewer than {@code maxConnectionsPerLoop} are open or opening, else waits in line, up to
 * {@code maxWaitingPerLoop} (beyond: 503). A connection that frees up serves the line before turning idle. A failed
 * connect fails the whole line when no other connection is left to serve it: the origin is down, and failing fast
 * beats each waiting call timing out on its own. The response timeout of a call runs from submission, so time spent
 * waiting counts.
 *
 * <p>Connection pipeline: {@code IdleStateHandler, HttpClientCodec, HttpObjectAggregator(maxResponseBytes),
 * OriginConnectionHandler}. An unresolved origin address is resolved at each connect by Netty's default resolver
 * (the JDK's, with its cache), so a DNS change is picked up by new connections.
 */
final class OriginPool {
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final OriginOptions options;
    private final String originName;
    private final RateLimitedLog warnings;
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final ArrayDeque<OriginCall> waiting = new ArrayDeque<>();
    private int open;
    private boolean closed;

    OriginPool(EventLoop loop, InetSocketAddress origin, OriginOptions options, RateLimitedLog warnings) {
        this.loop = loop;
        this.options = options;
        this.originName = origin.getHostString() + ":" + origin.getPort();
        this.warnings = warnings;
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(Transports.socketChannelFor(loop.parent() != null ? loop.parent() : loop))
                .remoteAddress(origin)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) options.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(
                                new IdleStateHandler(0, 0, options.idleTimeout().toMillis(), TimeUnit.MILLISECONDS),
                                new HttpClientCodec(4096, 16 << 10, 8192),
                                new HttpObjectAggregator(options.maxResponseBytes()),
                                new OriginConnectionHandler(OriginPool.this));
                    }
                });
    }

    /** Sends the call on a pooled or new connection, or queues it. On the loop. */
    void submit(OriginCall call) {
        if (!call.hasTimeout()) {
            call.timeout(loop.schedule(() -> timedOut(call), options.responseTimeout().toMillis(),
                    TimeUnit.MILLISECONDS));
        }
        if (closed) {
            fail(call, new OriginException(502, "origin client is closed"));
            return;
        }
        Channel ch;
        while ((ch = idle.pollFirst()) != null) {
            if (ch.isActive()) {
                send(ch, call, true);
                return;
            }
        }
        if (open < options.maxConnectionsPerLoop()) {
            connect(call);
        } else if (waiting.size() < options.maxWaitingPerLoop()) {
            waiting.addLast(call);
        } else {
            fail(call, new OriginException(503, "too many requests waiting for the origin"));
        }
    }

    private void connect(OriginCall call) {
        open++;
        ChannelFuture f = bootstrap.connect();
        f.addListener((ChannelFutureListener) done -> {
            Channel ch = done.channel();
            if (!done.isSuccess()) {
                open--;
                connectFailed(call, done.cause());
                return;
            }
            ch.closeFuture().addListener(closed -> disconnected(ch));
            if (call.isDone()) {
                released(ch, true);
            } else {
                send(ch, call, false);
            }
        });
    }

    private void send(Channel ch, OriginCall call, boolean reused) {
        call.channel = ch;
        call.reused = reused;
        ch.pipeline().get(OriginConnectionHandler.class).begin(call);
        ch.writeAndFlush(call.newAttempt()).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                f.channel().pipeline().fireExceptionCaught(f.cause());
            }
        });
    }

    /** The connection's call has its answer; the connection serves the line, turns idle, or closes. */
    void released(Channel ch, boolean reusable) {
        if (!reusable || closed || !ch.isActive()) {
            ch.close();
            return;
        }
        OriginCall next = nextWaiting();
        if (next != null) {
            send(ch, next, true);
        } else {
            idle.addFirst(ch);
        }
    }

    /** The connection carrying {@code call} failed before the answer: retry once if safe, else fail it. */
    void broken(OriginCall call, Throwable cause) {
        if (call.isDone()) {
            return;
        }
        // Closed or reset (IOException) on a connection that had been idle: the origin closed it as we wrote.
        if (cause instanceof IOException && call.reused && !call.retried && call.idempotent()) {
            call.retried = true;
            call.channel = null;
            submit(call);
            return;
        }
        OriginException failure;
        if (cause instanceof OriginException oe) {
            failure = oe;
        } else if (cause instanceof TooLongFrameException) {
            failure = new OriginException(502, "origin response is larger than " + options.maxResponseBytes()
                    + " bytes", cause);
        } else {
            failure = new OriginException(502, "origin connection failed: " + describe(cause), cause);
        }
        fail(call, failure);
    }

    private void connectFailed(OriginCall call, Throwable cause) {
        OriginException failure = new OriginException(502, "cannot connect to origin " + originName + ": "
                + describe(cause), cause);
        fail(call, failure);
        if (open == 0) {
            OriginCall next;
            while ((next = nextWaiting()) != null) {
                next.fail(failure);
            }
        }
    }

    private void disconnected(Channel ch) {
        open--;
        idle.remove(ch);
        if (!closed && open < options.maxConnectionsPerLoop()) {
            OriginCall next = nextWaiting();
            if (next != null) {
                connect(next);
            }
        }
    }

    private void timedOut(OriginCall call) {
        Channel ch = call.channel;
        waiting.remove(call);
        fail(call, new OriginException(504, "origin did not answer within " + options.responseTimeout().toMillis()
                + " ms"));
        if (ch != null) {
            ch.close(); // its answer may still come; the connection cannot be reused
        }
    }

    private OriginCall nextWaiting() {
        OriginCall next;
        while ((next = waiting.pollFirst()) != null && next.isDone()) {
            // timed out while waiting
        }
        return next;
    }

    private void fail(OriginCall call, OriginException failure) {
        if (!call.isDone()) {
            warnings.log("{} {} ({}): {}", failure.status(), call.method(), originName, failure.getMessage());
            call.fail(failure);
        }
    }

    /** Closes idle connections and fails the line; connections in flight close when their call ends. */
    void close() {
        closed = true;
        Channel ch;
        while ((ch = idle.pollFirst()) != null) {
            ch.close();
        }
        OriginCall next;
        while ((next = nextWaiting()) != null) {
            next.fail(new OriginException(502, "origin client is closed"));
        }
    }

    private static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null ? cause.getClass().getSimpleName() : message;
    }
}
