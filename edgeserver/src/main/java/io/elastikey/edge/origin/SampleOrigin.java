// SampleOrigin -- a small plain-HTTP origin for the demo and the tests of the edge's content path.
package io.elastikey.edge.origin;

import io.elastikey.protocol.net.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/1.1 keep-alive server whose paths exercise every caching rule of the edge. It counts requests and
 * connections so a test can prove that a cache hit never reached it. Paths (GET and HEAD unless noted):
 * <pre>
 *   /              small HTML page           Cache-Control: public, max-age=60
 *   /hello         text                      max-age=60, an ETag
 *   /healthz       "ok"                      no-store (a container health check)
 *   /time          the current time          max-age=1 (expires fast)
 *   /nostore       text                      no-store
 *   /private       text                      private, max-age=60
 *   /vary          the Accept-Language sent  max-age=60, Vary: Accept-Language
 *   /bytes/N       N deterministic bytes     max-age=60; N at most 16 MiB ({@link #bytes(int)} gives them)
 *   /status/N      status N (200..599)       max-age=60
 *   /slow?ms=N     text after N ms (max 30 s) no-store
 *   /close         text, then closes         Connection: close
 *   /echo          any method: what arrived  no-store; the method, target, forwarding headers and body
 *   anything else  404
 * </pre>
 */
public final class SampleOrigin implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel server;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();

    private SampleOrigin(InetSocketAddress bind) {
        this.group = Transports.newGroup(2, true, "sample-origin");
        SampleOriginHandler handler = new SampleOriginHandler(requests);
        try {
            this.server = new ServerBootstrap()
                    .group(group)
                    .channel(Transports.serverChannelFor(group))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            accepted.incrementAndGet();
                            connections.add(ch);
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), handler);
                        }
                    })
                    .bind(bind).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** Starts serving on {@code bind} (port 0: any free port, see {@link #address()}). */
    public static SampleOrigin start(InetSocketAddress bind) {
        return new SampleOrigin(bind);
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Requests answered or being answered since start. */
    public long requestCount() {
        return requests.get();
    }

    /** Connections accepted since start. */
    public long connectionCount() {
        return accepted.get();
    }

    /** Closes every open client connection, as an origin's keep-alive timeout would; keeps listening. */
    public void dropConnections() {
        connections.close().syncUninterruptibly();
    }

    /** The body of {@code /bytes/n}: byte i is {@code (i * 31 + i / 256) mod 256}. */
    public static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = SampleOriginHandler.byteAt(i);
        }
        return b;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        connections.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
