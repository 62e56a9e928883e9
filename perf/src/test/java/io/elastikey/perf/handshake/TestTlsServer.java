// TestTlsServer -- a TLS server for the load generator's tests: BoringSSL like the edge, counts full and resumed.
package io.elastikey.perf.handshake;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.internal.tcnative.SSL;

/**
 * Serves one {@link SslContext} on a loopback port: the handshake, then HTTP/1.1 answering {@code 200 ok} for
 * {@code /ok} and {@code 404} otherwise. It counts handshakes as BoringSSL on the server side saw them, so a test can
 * check the client's own count of resumptions against the other end.
 */
final class TestTlsServer implements AutoCloseable {
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);
    private final AtomicInteger full = new AtomicInteger();
    private final AtomicInteger resumed = new AtomicInteger();
    private final Set<String> namesAndHosts = ConcurrentHashMap.newKeySet();
    private final Channel listener;

    TestTlsServer(SslContext context) throws InterruptedException {
        listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(context.newHandler(channel.alloc()), new Counter(),
                                new HttpServerCodec(), new HttpObjectAggregator(4096), new Responder());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    int fullHandshakes() {
        return full.get();
    }

    int resumedHandshakes() {
        return resumed.get();
    }

    /** Each request's connection's SNI name and its Host header, as {@code "name host"}. */
    Set<String> namesAndHosts() {
        return namesAndHosts;
    }

    @Override
    public void close() {
        if (group.isShuttingDown()) {
            return;
        }
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Counter extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
                ReferenceCountedOpenSslEngine engine =
                        (ReferenceCountedOpenSslEngine) ctx.pipeline().get(SslHandler.class).engine();
                synchronized (engine) {
                    (SSL.isSessionReused(engine.sslPointer()) ? resumed : full).incrementAndGet();
                }
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // clients that fail the handshake or reset are expected here
        }
    }

    private final class Responder extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            ExtendedSSLSession session =
                    (ExtendedSSLSession) ctx.pipeline().get(SslHandler.class).engine().getSession();
            String sni = session.getRequestedServerNames().isEmpty() ? "-"
                    : ((SNIHostName) session.getRequestedServerNames().get(0)).getAsciiName();
            namesAndHosts.add(sni + " " + request.headers().get(HttpHeaderNames.HOST));
            boolean ok = request.uri().equals("/ok");
            FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(),
                    ok ? HttpResponseStatus.OK : HttpResponseStatus.NOT_FOUND,
                    Unpooled.copiedBuffer(ok ? "ok" : "no", StandardCharsets.US_ASCII));
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
