package io.elastikey.protocol.keyless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.protocol.ski.SkiTls;
import io.elastikey.protocol.ski.SkiTransportException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KeylessClient} against scripted servers over mutual TLS: answers matched by ID in any order, error answers,
 * requests no answer comes for (timeout), a connection that closes, an answer that is no answer.
 */
class KeylessClientTest {
    private static final String KEY = "ab".repeat(32);

    @TempDir
    Path dir;
    private DevPki pki;
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private Channel server;

    @BeforeEach
    void pki() throws Exception {
        pki = DevPki.loadOrCreate(dir.resolve("pki"));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** Starts a server whose frames go to {@code script} with the channel. */
    private InetSocketAddress serve(BiConsumer<Channel, KeylessMessage> script) throws Exception {
        SslContext tls = SslContextBuilder.forServer(pki.server().privateKey(), pki.server().chain())
                .sslProvider(SkiTls.defaultProvider()).trustManager(pki.ca().certificate())
                .clientAuth(ClientAuth.REQUIRE).protocols("TLSv1.3", "TLSv1.2").build();
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()), new KeylessFrameDecoder(65535),
                                new ChannelInboundHandlerAdapter() {
                                    @Override
                                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                        if (msg instanceof KeylessMessage m) {
                                            script.accept(ctx.channel(), m);
                                        }
                                    }
                                });
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
        return (InetSocketAddress) server.localAddress();
    }

    private KeylessClient client(InetSocketAddress address, Duration timeout) throws Exception {
        return KeylessClient.create(SkiTls.clientContext(pki.client().chain(), pki.client().privateKey(),
                List.of(pki.ca().certificate()), null, SkiTls.defaultProvider()), address,
                SkiClientOptions.builder().serverName("localhost").requestTimeout(timeout).build());
    }

    private static void answer(Channel channel, int id, KeylessOpcode opcode, byte[] payload) {
        ByteBuf out = channel.alloc().buffer();
        KeylessCodec.writeAnswer(out, id, opcode, payload);
        channel.writeAndFlush(out);
    }

    @Test
    void answersInAnotherOrderReachTheirRequests() throws Exception {
        List<KeylessMessage> held = new ArrayList<>();
        InetSocketAddress address = serve((channel, message) -> {
            held.add(message);
            if (held.size() == 3) {
                for (int i = 2; i >= 0; i--) {
                    KeylessMessage m = held.get(i);
                    answer(channel, m.id(), KeylessOpcode.RESPONSE, m.payload());
                }
            }
        });
        try (KeylessClient client = client(address, Duration.ofSeconds(10))) {
            List<CompletableFuture<byte[]>> answers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                answers.add(client.ping(new byte[] {(byte) i}));
            }
            for (int i = 0; i < 3; i++) {
                assertThat(answers.get(i).get(10, TimeUnit.SECONDS)).containsExactly(i);
            }
        }
    }

    @Test
    void anErrorAnswerIsTheSkiErrorItMapsTo() throws Exception {
        InetSocketAddress address = serve((channel, message) -> answer(channel, message.id(), KeylessOpcode.ERROR,
                new byte[] {(byte) KeylessError.INTERNAL_ERROR.code()}));
        try (KeylessClient client = client(address, Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> client.execute(SkiRequest.sign(KEY, SignatureScheme.ED25519, new byte[1]))
                    .get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(KeylessAnswerException.class, e -> {
                        assertThat(e.keylessError()).isEqualTo(KeylessError.INTERNAL_ERROR);
                        assertThat(e.error()).isEqualTo(SkiError.OVERLOADED);
                    });
        }
    }

    @Test
    void aRequestNoAnswerComesForTimesOutAndTheNextOneIsStillServed() throws Exception {
        InetSocketAddress address = serve((channel, message) -> {
            if (message.payload() != null && message.payload()[0] == 1) {
                answer(channel, message.id(), KeylessOpcode.PONG, message.payload());
            }
        });
        try (KeylessClient client = client(address, Duration.ofMillis(300))) {
            CompletableFuture<byte[]> ignored = client.ping(new byte[] {0});

            assertThatThrownBy(() -> ignored.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(SkiTransportException.class,
                            e -> assertThat(e.kind()).isEqualTo(SkiTransportException.Kind.TIMEOUT));
            assertThat(client.ping(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);
            assertThat(client.outstanding()).isZero();
        }
    }

    @Test
    void aConnectionThatClosesFailsWhatItCarriedAndIsMadeAgain() throws Exception {
        InetSocketAddress address = serve((channel, message) -> {
            if (message.payload()[0] == 0) {
                channel.close();
            } else {
                answer(channel, message.id(), KeylessOpcode.PONG, message.payload());
            }
        });
        try (KeylessClient client = client(address, Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> client.ping(new byte[] {0}).get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(SkiTransportException.class,
                            e -> assertThat(e.kind()).isEqualTo(SkiTransportException.Kind.CONNECTION_CLOSED));
            assertThat(client.ping(new byte[] {1}).get(10, TimeUnit.SECONDS)).containsExactly(1);
        }
    }

    @Test
    void anAnswerWithAnotherOpcodeIsABadAnswer() throws Exception {
        InetSocketAddress address = serve((channel, message) -> answer(channel, message.id(), KeylessOpcode.PING,
                new byte[1]));
        try (KeylessClient client = client(address, Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> client.ping(new byte[] {0}).get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(SkiTransportException.class,
                            e -> assertThat(e.kind()).isEqualTo(SkiTransportException.Kind.BAD_ANSWER));
        }
    }

    @Test
    void whatKeylessCannotExpressFailsBeforeAnythingIsSent() throws Exception {
        try (KeylessClient client = client(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9),
                Duration.ofSeconds(10))) {
            assertThatThrownBy(() -> client.execute(SkiRequest.rsa(KEY, new byte[256])).get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(SkiException.class,
                            e -> assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST));
            assertThatThrownBy(() -> client.execute(SkiRequest.sign("abc", SignatureScheme.ED25519, new byte[1]))
                    .get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOf(SkiException.class);
        }
    }
}
