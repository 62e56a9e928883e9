// HandshakeClient -- opens connections to one TLS server, each a HandshakeAttempt, on its own event loops.
package io.elastikey.perf.handshake;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.elastikey.protocol.net.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslHandler;

/**
 * Starts connections and says how many are open. Each {@link #start} is a new TCP connection and a new TLS engine;
 * nothing is pooled, since a new connection is what is measured. The target address is resolved once, up front, and
 * the TLS engine is told the server name and port, which give SNI, the certificate's name check and the session
 * cache's key. Thread-safe; {@link #start} may be called from any thread, event loops included.
 */
final class HandshakeClient implements AutoCloseable {
    /** Hears of each attempt once, on an event loop, after its channel has closed. Must not block. */
    interface Listener {
        void finished(HandshakeAttempt attempt);
    }

    private final HandshakeTls tls;
    private final InetSocketAddress target;
    /** Offered one per connection, drawn at random when there are several. */
    private final List<String> serverNames;
    private final String requestPath;
    private final int timeoutMillis;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param requestPath   the path of one GET after each handshake, or null for none
     * @param timeoutMillis for the TCP connect, the handshake and the GET, each
     * @param threads       event loops
     */
    HandshakeClient(HandshakeTls tls, InetSocketAddress target, List<String> serverNames, String requestPath,
                    int timeoutMillis, int threads) {
        this.tls = tls;
        this.target = target;
        this.serverNames = List.copyOf(serverNames);
        this.requestPath = requestPath;
        this.timeoutMillis = timeoutMillis;
        this.group = Transports.newGroup(threads, true, "handshake-client");
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannelFor(group))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeoutMillis);
    }

    /** Opens one connection; {@code listener} hears how it went. */
    void start(long startNanos, boolean measured, Listener listener) {
        HandshakeAttempt attempt = new HandshakeAttempt(this, startNanos, measured, listener);
        open.incrementAndGet();
        attempt.connecting(bootstrap.clone().handler(attempt).connect(target));
    }

    /** Runs {@code task} on one of the client's event loops. */
    void execute(Runnable task) {
        group.next().execute(task);
    }

    /** Connections started and not yet closed. */
    int open() {
        return open.get();
    }

    void ended() {
        open.decrementAndGet();
    }

    /** A handler for a new connection, offering one of the server names. */
    SslHandler newSslHandler(ByteBufAllocator alloc) {
        String serverName = serverNames.size() == 1 ? serverNames.get(0)
                : serverNames.get(ThreadLocalRandom.current().nextInt(serverNames.size()));
        SslHandler handler = tls.context().newHandler(alloc, serverName, target.getPort());
        handler.setHandshakeTimeoutMillis(timeoutMillis);
        return handler;
    }

    /** The GET of a connection whose handshake offered {@code serverName}. */
    FullHttpRequest newRequest(String serverName) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, requestPath);
        request.headers()
                .set(HttpHeaderNames.HOST, target.getPort() == 443 ? serverName : serverName + ":" + target.getPort())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return request;
    }

    HandshakeTls tls() {
        return tls;
    }

    String requestPath() {
        return requestPath;
    }

    int timeoutMillis() {
        return timeoutMillis;
    }

    /** {@code epoll} or {@code nio}. */
    String transport() {
        return Transports.name(group);
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
