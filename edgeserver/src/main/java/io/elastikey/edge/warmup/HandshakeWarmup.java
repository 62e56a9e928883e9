// HandshakeWarmup -- before an edge opens its listener, full TLS handshakes with itself over loopback.
package io.elastikey.edge.warmup;

import io.elastikey.protocol.net.Listeners;
import io.elastikey.protocol.net.Transports;
import io.elastikey.protocol.warmup.CompilerActivity;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fresh edge cost 1.6-1.9 ms of CPU per full handshake in its first seconds under load and some 0.3 ms only after
 * 25-30 s, while C2 compiled Netty's TLS glue, the key-operation hand-off and the key-server client under the
 * clients' own handshakes (docs/benchmarks.md, "A fresh edge"). So before the edge binds its listener it makes full
 * handshakes with itself: a listener of its own on a loopback port, with the edge's real pipeline, certificates and
 * key operations, and a client that offers each {@link WarmupCase} in its turns, {@value #IN_FLIGHT} at a time, until
 * the JIT has gone quiet ({@link CompilerActivity}) or {@code warmup.handshakes} is up.
 *
 * <p>The key operations are real: they go to the key servers as any handshake's would, so the key servers see (and
 * audit) them as this edge's, and they warm the key servers' path too. A warm-up whose handshakes keep failing
 * (no key server answers yet) stops after {@value #FAILURES_IN_A_ROW} failures in a row: it must never hold a start
 * back for its whole budget to learn nothing. Connections close right after their handshake, so no request reaches
 * the origin or the cache.
 */
public final class HandshakeWarmup {
    private static final Logger log = LoggerFactory.getLogger(HandshakeWarmup.class);
    static final int IN_FLIGHT = 16;
    static final int FAILURES_IN_A_ROW = 32;

    private HandshakeWarmup() {
    }

    /** What one warm-up reports: handshakes made and failed, how it ended. */
    public record Outcome(long handshakes, long failures, String ending) {
    }

    /**
     * Runs the warm-up on {@code io} with the edge's {@code pipeline}, and returns what it did. Never throws: a
     * warm-up that cannot run costs only the warm-up.
     */
    public static Outcome run(EventLoopGroup io, ChannelInitializer<SocketChannel> pipeline, List<WarmupCase> cases,
                              Duration budget) {
        if (budget.isZero() || cases.isEmpty()) {
            return new Outcome(0, 0, "skipped");
        }
        long start = System.nanoTime();
        long compiling = CompilerActivity.millisSoFar();
        List<Channel> listeners = List.of();
        EventLoopGroup clientLoop = Transports.newGroup(1, true, "edge-warmup");
        List<SslContext> contexts = new ArrayList<>();
        try {
            // accepted as the edge's clients are, on each loop
            listeners = Listeners.bindOnEachLoop("warm-up", new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    io, bootstrap -> bootstrap.childOption(ChannelOption.TCP_NODELAY, true).childHandler(pipeline));
            for (WarmupCase c : cases) {
                contexts.add(c.clientContext());
            }
            InetSocketAddress address = (InetSocketAddress) listeners.get(0).localAddress();
            Outcome outcome = handshakes(clientLoop, address, cases, contexts, start + budget.toNanos());
            log.info("warm-up: {} full handshakes with itself over loopback ({}) in {} ms, {}; the JIT compiling "
                            + "for {} ms of it", outcome.handshakes(), cases, (System.nanoTime() - start) / 1_000_000,
                    outcome.ending(), CompilerActivity.millisSoFar() - compiling);
            return outcome;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("warm-up handshakes stopped: {}", e.toString());
            return new Outcome(0, 0, "stopped: " + e);
        } finally {
            listeners.forEach(listener -> listener.close().syncUninterruptibly());
            clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            contexts.forEach(ReferenceCountUtil::release);
        }
    }

    /** Keeps {@value #IN_FLIGHT} handshakes under way, the cases in turn, until one of the three endings. */
    private static Outcome handshakes(EventLoopGroup loop, InetSocketAddress address, List<WarmupCase> cases,
                                      List<SslContext> contexts, long deadline) throws InterruptedException {
        Semaphore window = new Semaphore(IN_FLIGHT);
        AtomicLong done = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicInteger failingInARow = new AtomicInteger();
        AtomicReference<Throwable> lastFailure = new AtomicReference<>();
        List<Integer> order = WarmupCase.schedule(cases);
        CompilerActivity compiler = new CompilerActivity(System.nanoTime());
        String ending = "its time was up, the JIT still compiling";
        for (int i = 0; System.nanoTime() - deadline < 0; i++) {
            if (compiler.quiet(System.nanoTime())) {
                ending = "until the JIT was quiet";
                break;
            }
            if (failingInARow.get() >= FAILURES_IN_A_ROW) {
                ending = "stopped after " + FAILURES_IN_A_ROW + " failures in a row, the last: " + lastFailure.get();
                break;
            }
            if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                continue;
            }
            int next = order.get(i % order.size());
            handshake(loop, address, cases.get(next), contexts.get(next)).addListener(f -> {
                if (f.isSuccess()) {
                    done.incrementAndGet();
                    failingInARow.set(0);
                } else {
                    failed.incrementAndGet();
                    failingInARow.incrementAndGet();
                    lastFailure.set(f.cause());
                }
                window.release();
            });
        }
        window.tryAcquire(IN_FLIGHT, 10, TimeUnit.SECONDS); // the last ones finished before the listener closes
        if (failed.get() > 0 && failingInARow.get() < FAILURES_IN_A_ROW) {
            // The failure as text: passed as the last argument, a Throwable would be taken for the line's stack trace
            log.warn("warm-up: {} of its handshakes failed, the last with {}", failed.get(),
                    String.valueOf(lastFailure.get()));
        }
        return new Outcome(done.get(), failed.get(), ending);
    }

    /** One connection: connect, a full handshake offering {@code c}, close. The future ends with the handshake. */
    private static Future<Channel> handshake(EventLoopGroup loop, InetSocketAddress address, WarmupCase c,
                                             SslContext context) {
        Promise<Channel> result = loop.next().newPromise();
        ChannelFuture connect = new Bootstrap().group(loop).channel(Transports.socketChannelFor(loop))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        SslHandler ssl = context.newHandler(channel.alloc(), c.serverName(), address.getPort());
                        ssl.setHandshakeTimeoutMillis(10_000);
                        channel.pipeline().addLast(ssl, DISCARD);
                    }
                })
                .connect(address);
        connect.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                result.tryFailure(f.cause());
                return;
            }
            f.channel().pipeline().get(SslHandler.class).handshakeFuture().addListener(h -> {
                f.channel().close();
                if (h.isSuccess()) {
                    result.trySuccess(f.channel());
                } else {
                    result.tryFailure(h.cause());
                }
            });
        });
        return result;
    }

    /** Drops whatever the server sends after the handshake (tickets), and the exception a closed handshake ends in. */
    private static final ChannelHandler DISCARD = new ChannelInboundHandlerAdapter() {
        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    };
}
