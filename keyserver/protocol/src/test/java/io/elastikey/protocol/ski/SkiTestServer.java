// SkiTestServer -- a small SKI server for client tests: mutual TLS, h2 and http/1.1 on one port, canned answers.
package io.elastikey.protocol.ski;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import javax.net.ssl.SSLException;

import io.elastikey.protocol.pki.DevPki;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;

/**
 * Serves SKI the way the key server will, minus the keys: a client certificate from the dev CA is required, ALPN picks
 * h2 or http/1.1, requests are decoded with {@link SkiJson} (a malformed one gets the real 400), and a behaviour
 * function chooses each reply. It counts what a test wants to assert about the client: connections accepted,
 * requests received, and the most requests ever open at once on one connection.
 */
public final class SkiTestServer implements AutoCloseable {
    private static final AttributeKey<AtomicInteger> IN_FLIGHT = AttributeKey.valueOf("skiTestInFlight");

    private final NioEventLoopGroup group = new NioEventLoopGroup(1);
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final SslContext sslContext;
    private final int maxConcurrentStreams;
    private final int holdUntil;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger received = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final Map<String, Integer> peerPorts = new ConcurrentHashMap<>();
    private final List<Runnable> held = new ArrayList<>();
    private volatile Function<SkiRequest, CannedAnswer> behaviour = request -> CannedAnswer.output(request.input());
    private final Channel listener;

    private SkiTestServer(DevPki pki, List<String> protocols, int maxConcurrentStreams, int holdUntil)
            throws SSLException, InterruptedException {
        this.maxConcurrentStreams = maxConcurrentStreams;
        this.holdUntil = holdUntil;
        this.sslContext = SslContextBuilder.forServer(pki.server().privateKey(), pki.server().chain())
                .sslProvider(SkiTls.defaultProvider())
                .trustManager(pki.ca().certificate())
                .clientAuth(ClientAuth.REQUIRE)
                .protocols("TLSv1.3", "TLSv1.2")
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols))
                .build();
        this.listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.incrementAndGet();
                        channels.add(ch);
                        ch.attr(IN_FLIGHT).set(new AtomicInteger());
                        ch.pipeline().addLast(sslContext.newHandler(ch.alloc()), new Negotiation());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
    }

    /** A server offering h2 and http/1.1, echoing inputs until told otherwise. */
    public static SkiTestServer start(DevPki pki) throws Exception {
        return new SkiTestServer(pki, List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1),
                100, Integer.MAX_VALUE);
    }

    /**
     * @param protocols            the ALPN names offered, in preference order
     * @param maxConcurrentStreams the HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS
     * @param holdUntil            held answers are all released once this many are held
     */
    public static SkiTestServer start(DevPki pki, List<String> protocols, int maxConcurrentStreams, int holdUntil)
            throws Exception {
        return new SkiTestServer(pki, protocols, maxConcurrentStreams, holdUntil);
    }

    public SkiTestServer behaviour(Function<SkiRequest, CannedAnswer> value) {
        this.behaviour = value;
        return this;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** The client port of the connection that carried the request whose input is {@code input} (UTF-8). */
    public Integer peerPortOf(String input) {
        return peerPorts.get(input);
    }

    public int connectionsAccepted() {
        return accepted.get();
    }

    public int requestsReceived() {
        return received.get();
    }

    /** The most requests ever received and not yet answered on one connection. */
    public int maxInFlightPerConnection() {
        return maxInFlight.get();
    }

    /** Waits (up to 10 s) until {@code count} requests have arrived. */
    public void awaitReceived(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.get() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + received.get() + " of " + count + " requests arrived");
            }
            Thread.sleep(5);
        }
    }

    /** Answers every held request. */
    public void releaseHeld() {
        List<Runnable> answers;
        synchronized (held) {
            answers = new ArrayList<>(held);
            held.clear();
        }
        answers.forEach(Runnable::run);
    }

    /** Stops listening and closes every connection; a second call does nothing. */
    @Override
    public void close() {
        if (group.isShuttingDown()) {
            return;
        }
        listener.close().syncUninterruptibly();
        channels.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Negotiation extends ApplicationProtocolNegotiationHandler {
        Negotiation() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                Http2Settings settings = Http2Settings.defaultSettings().maxConcurrentStreams(maxConcurrentStreams);
                ctx.pipeline().addLast(Http2FrameCodecBuilder.forServer().initialSettings(settings).build(),
                        new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                            @Override
                            protected void initChannel(Http2StreamChannel stream) {
                                stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                                        new HttpObjectAggregator(1 << 20), new Canned());
                            }
                        }));
            } else {
                ctx.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Canned());
            }
        }
    }

    /** Decodes a request and replies as the behaviour says. */
    @ChannelHandler.Sharable
    private final class Canned extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            Channel connection = ctx.channel() instanceof Http2StreamChannel ? ctx.channel().parent() : ctx.channel();
            AtomicInteger inFlight = connection.attr(IN_FLIGHT).get();
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            CannedAnswer answer;
            try {
                SkiRequest ski = SkiJson.decodeRequest(request.content());
                peerPorts.put(new String(ski.input(), StandardCharsets.UTF_8),
                        ((InetSocketAddress) connection.remoteAddress()).getPort());
                answer = behaviour.apply(ski);
            } catch (SkiException e) {
                answer = CannedAnswer.error(e.error());
            }
            if (answer instanceof CannedAnswer.Output output) {
                respond(ctx, inFlight, 200, SkiJson.encodeOutput(output.output()));
            } else if (answer instanceof CannedAnswer.OutputThenClose output) {
                respond(ctx, inFlight, 200, SkiJson.encodeOutput(output.output()), true);
            } else if (answer instanceof CannedAnswer.Error error) {
                respond(ctx, inFlight, error.error().status(), SkiJson.encodeError(error.error()));
            } else if (answer instanceof CannedAnswer.Raw raw) {
                respond(ctx, inFlight, raw.status(), raw.body().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } else if (answer instanceof CannedAnswer.HangUp) {
                connection.close();
            } else if (answer instanceof CannedAnswer.Held) {
                byte[] echo = SkiJson.encodeOutput(SkiJson.decodeRequest(request.content()).input());
                hold(() -> ctx.executor().execute(() -> respond(ctx, inFlight, 200, echo)));
            }
            // Counted once handled: a test that waits for N requests and then releases the held ones must find
            // all N held (counting on arrival let the last one be held after the release, and never answered).
            received.incrementAndGet();
        }

        private void hold(Runnable answer) {
            boolean release;
            synchronized (held) {
                held.add(answer);
                release = held.size() >= holdUntil;
            }
            if (release) {
                releaseHeld();
            }
        }

        private void respond(ChannelHandlerContext ctx, AtomicInteger inFlight, int status, byte[] body) {
            respond(ctx, inFlight, status, body, false);
        }

        private void respond(ChannelHandlerContext ctx, AtomicInteger inFlight, int status, byte[] body,
                boolean close) {
            inFlight.decrementAndGet();
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            if (close) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.writeAndFlush(response);
            }
        }
    }
}
