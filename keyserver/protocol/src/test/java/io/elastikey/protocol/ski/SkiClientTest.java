// SkiClientTest -- SkiClient against SkiTestServer over real mutual TLS on loopback, HTTP/2 and HTTP/1.1.
package io.elastikey.protocol.ski;

import io.elastikey.protocol.net.Transports;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import javax.net.ssl.SSLHandshakeException;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.EventExecutor;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SkiClientTest {
    private static final String SPKI = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B";
    private static final long WAIT_SECONDS = 20;

    @TempDir
    static Path pkiDirectory;
    private static DevPki pki;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void createPki() throws Exception {
        pki = DevPki.loadOrCreate(pkiDirectory);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void manyConcurrentRequestsEachGetTheirOwnAnswerOverThePool(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SkiClient client = client(server, version, options -> options.connections(3));

        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            answers.add(client.execute(SkiRequest.rsa(SPKI, ("request " + i).getBytes(UTF_8))));
        }

        for (int i = 0; i < answers.size(); i++) {
            assertThat(new String(await(answers.get(i)), UTF_8)).isEqualTo("request " + i);
        }
        assertThat(server.connectionsAccepted()).isEqualTo(3);
        assertThat(client.connections()).isEqualTo(3);
        assertThat(client.outstanding()).isZero();
    }

    /**
     * A caller on one of the client's (lent) event loops gets a connection of that loop, so the request is written
     * and answered on the caller's thread: every request sent from loop A went out on one connection, every one from
     * loop B on another, though the other loop's connection was idle too.
     */
    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void aRequestFromAClientEventLoopGoesOutOnThatLoopsConnection(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        EventLoopGroup loops = new NioEventLoopGroup(2);
        try {
            SkiClient client = client(server, version, options -> options.connections(2).eventLoopGroup(loops));
            await(client.connect());
            List<EventExecutor> executors = new ArrayList<>();
            loops.forEach(executors::add);
            // One at a time, so that over HTTP/1.1 the loop's own connection is idle again (a busy one would rightly
            // send the caller to another idle connection rather than make it wait).
            for (int round = 0; round < 20; round++) {
                for (int loop = 0; loop < 2; loop++) {
                    String input = "loop " + loop + " request " + round;
                    await(executors.get(loop).submit(() -> client.execute(SkiRequest.rsa(SPKI,
                            input.getBytes(UTF_8)))).get(WAIT_SECONDS, TimeUnit.SECONDS));
                }
            }
            for (int loop = 0; loop < 2; loop++) {
                Set<Integer> ports = new HashSet<>();
                for (int round = 0; round < 20; round++) {
                    ports.add(server.peerPortOf("loop " + loop + " request " + round));
                }
                assertThat(ports).as("connections used from loop %d", loop).hasSize(1);
            }
            assertThat(server.peerPortOf("loop 0 request 0")).isNotEqualTo(server.peerPortOf("loop 1 request 0"));
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void http2MultiplexesRequestsOnOneConnection() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki, List.of(ApplicationProtocolNames.HTTP_2), 100, 10));
        server.behaviour(request -> CannedAnswer.held()); // answered only once all ten are open at once
        SkiClient client = client(server, SkiHttpVersion.HTTP_2, options -> options.connections(1));

        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            answers.add(client.execute(SkiRequest.rsa(SPKI, new byte[] {(byte) i})));
        }

        for (int i = 0; i < 10; i++) {
            assertThat(await(answers.get(i))).containsExactly(i);
        }
        assertThat(server.maxInFlightPerConnection()).isEqualTo(10);
        assertThat(server.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void http2StreamsBeyondTheServersLimitWaitForAFreeOne() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki, List.of(ApplicationProtocolNames.HTTP_2), 4,
                Integer.MAX_VALUE));
        SkiClient client = client(server, SkiHttpVersion.HTTP_2, options -> options.connections(1));

        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            answers.add(client.execute(SkiRequest.rsa(SPKI, new byte[] {(byte) i})));
        }

        for (int i = 0; i < answers.size(); i++) {
            assertThat(await(answers.get(i))).containsExactly(i);
        }
        assertThat(server.maxInFlightPerConnection()).isLessThanOrEqualTo(4);
    }

    @Test
    void http2AnswersLargerThanTheStreamsFlowControlWindowArriveWhole() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki, List.of(ApplicationProtocolNames.HTTP_2), 100, 10));
        SkiClient client = client(server, SkiHttpVersion.HTTP_2,
                options -> options.connections(1).maxResponseBytes(1 << 20));

        // 96 KB of output is some 128 KB of JSON, twice a stream's initial 64 KB window: the server can send the
        // rest only once the client gives the received bytes back. Three in a row keep the connection's window open.
        for (int i = 0; i < 3; i++) {
            byte[] input = new byte[96 * 1024];
            input[0] = (byte) i;
            assertThat(await(client.execute(SkiRequest.rsa(SPKI, input)))).isEqualTo(input);
        }
        assertThat(server.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void aTimedOutHttp2RequestEndsItsStreamAndTheConnectionCarriesTheNext() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki, List.of(ApplicationProtocolNames.HTTP_2), 100, 10))
                .behaviour(request -> request.input()[0] == 0 ? CannedAnswer.silence()
                        : CannedAnswer.output(request.input()));
        SkiClient client = client(server, SkiHttpVersion.HTTP_2,
                options -> options.connections(1).requestTimeout(Duration.ofMillis(300)));

        for (int i = 0; i < 3; i++) {
            assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {0}))), Kind.TIMEOUT);
            assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {9})))).containsExactly(9);
        }
        assertThat(client.outstanding()).isZero();
        assertThat(server.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void http1CarriesOneRequestPerConnectionAndTheRestWait() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        server.behaviour(request -> CannedAnswer.held());
        SkiClient client = client(server, SkiHttpVersion.HTTP_1_1, options -> options.connections(2));

        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(client.execute(SkiRequest.rsa(SPKI, new byte[] {(byte) i})));
        }
        server.awaitReceived(2);

        assertThat(server.requestsReceived()).isEqualTo(2);
        assertThat(answers.stream().filter(CompletableFuture::isDone)).isEmpty();
        server.behaviour(request -> CannedAnswer.output(request.input()));
        server.releaseHeld();
        for (int i = 0; i < 5; i++) {
            assertThat(await(answers.get(i))).containsExactly(i);
        }
        assertThat(server.maxInFlightPerConnection()).isEqualTo(1);
        assertThat(server.connectionsAccepted()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void aFullBacklogRefusesTheNextRequestAtOnce(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki)).behaviour(request -> CannedAnswer.silence());
        SkiClient client = client(server, version, options -> options.maxOutstanding(3));
        for (int i = 0; i < 3; i++) {
            client.execute(SkiRequest.rsa(SPKI, new byte[] {1}));
        }

        CompletableFuture<byte[]> refused = client.execute(SkiRequest.rsa(SPKI, new byte[] {1}));

        assertThat(refused).isCompletedExceptionally();
        assertTransportFailure(() -> await(refused), Kind.BACKLOG_FULL);
        assertThat(client.outstanding()).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(SkiError.class)
    void everyErrorAnswerCompletesWithItsSkiError(SkiError error) throws Exception {
        for (SkiHttpVersion version : SkiHttpVersion.values()) {
            SkiTestServer server = server(SkiTestServer.start(pki)).behaviour(request -> CannedAnswer.error(error));
            SkiClient client = client(server, version, options -> options);

            assertThatThrownBy(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))))
                    .isInstanceOfSatisfying(SkiException.class, e -> assertThat(e.error()).isEqualTo(error));
        }
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void anAnswerThatIsNoSkiAnswerIsABadAnswer(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki))
                .behaviour(request -> CannedAnswer.raw(502, "<html>Bad Gateway</html>"));
        SkiClient client = client(server, version, options -> options);

        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))), Kind.BAD_ANSWER);
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void anAnswerOverTheSizeLimitIsABadAnswerAndTheConnectionGoesOn(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SkiClient client = client(server, version, options -> options.maxResponseBytes(1024));

        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[2048]))), Kind.BAD_ANSWER);
        assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {7})))).containsExactly(7);
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void aRequestWithoutAnswerTimesOutAndTheClientCarriesOn(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki))
                .behaviour(request -> request.input()[0] == 0 ? CannedAnswer.silence()
                        : CannedAnswer.output(request.input()));
        SkiClient client = client(server, version, options -> options.requestTimeout(Duration.ofMillis(300)));

        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {0}))), Kind.TIMEOUT);
        assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {5})))).containsExactly(5);
        assertThat(client.outstanding()).isZero();
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void aConnectionTheServerClosesFailsItsRequestAndIsMadeAgain(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki))
                .behaviour(request -> request.input()[0] == 0 ? CannedAnswer.hangUp()
                        : CannedAnswer.output(request.input()));
        SkiClient client = client(server, version, options -> options);
        assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1})))).containsExactly(1);

        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {0}))),
                Kind.CONNECTION_CLOSED);
        assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {2})))).containsExactly(2);
        assertThat(server.connectionsAccepted()).isEqualTo(2);
    }

    @Test
    void anHttp11AnswerWithConnectionCloseEndsTheConnectionWithoutFailingAnything() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki))
                .behaviour(request -> CannedAnswer.outputThenClose(request.input()));
        SkiClient client = client(server, SkiHttpVersion.HTTP_1_1, options -> options.connections(1));

        for (int i = 0; i < 3; i++) {
            assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {(byte) i})))).containsExactly(i);
        }

        assertThat(server.connectionsAccepted()).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void rawPostsReachTheServerAsTheyAre(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SkiClient client = client(server, version, options -> options);

        SkiResponse response = await(client.post("{\"method\":\"RSA\"".getBytes(UTF_8)));

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.bodyText()).isEqualTo("{\"error\":\"malformed request\"}");
        assertThat(response.toString()).doesNotContain("malformed");
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void nothingListeningIsAConnectFailure(SkiHttpVersion version) throws Exception {
        InetSocketAddress closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = new InetSocketAddress("127.0.0.1", socket.getLocalPort());
        }
        SkiClient client = client(closedPort, SkiTls.clientContext(pkiDirectory, version), version, options -> options);

        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))),
                Kind.CONNECT_FAILED);
        assertTransportFailure(() -> await(client.connect()), Kind.CONNECT_FAILED);
    }

    @Test
    void aServerCertificateFromAnotherCaIsAConnectFailure() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        CertificateAuthority stranger = CertificateAuthority.create("Stranger CA", KeyType.EC_P256, Validity.days(1));
        SslContext trustsStranger = SkiTls.clientContext(pki.client().chain(), pki.client().privateKey(),
                List.of(stranger.certificate()), SkiHttpVersion.HTTP_2, SkiTls.defaultProvider());
        SkiClient client = client(server.address(), trustsStranger, SkiHttpVersion.HTTP_2, options -> options);

        assertThatThrownBy(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))))
                .isInstanceOfSatisfying(SkiTransportException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.CONNECT_FAILED))
                .hasCauseInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void aServerCertificateForAnotherNameIsAConnectFailure() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SkiClient client = client(server, SkiHttpVersion.HTTP_2, options -> options.serverName("keys.example.net"));

        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))),
                Kind.CONNECT_FAILED);
    }

    @Test
    void theServerNamedInTheCertificateIsAccepted() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SkiClient client = client(server, SkiHttpVersion.HTTP_2, options -> options.serverName("localhost"));

        assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {3})))).containsExactly(3);
    }

    @Test
    void aClientCertificateFromAnotherCaIsRefusedByTheServer() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        CertificateAuthority stranger = CertificateAuthority.create("Stranger CA", KeyType.EC_P256, Validity.days(1));
        IssuedCertificate intruder = stranger.issueClient("edge-1", List.of(), KeyType.EC_P256, Validity.days(1));
        SslContext context = SkiTls.clientContext(intruder.chain(), intruder.privateKey(),
                List.of(pki.ca().certificate()), SkiHttpVersion.HTTP_1_1, SkiTls.defaultProvider());
        SkiClient client = client(server.address(), context, SkiHttpVersion.HTTP_1_1, options -> options);

        assertThatThrownBy(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))))
                .isInstanceOf(SkiTransportException.class);
        assertThat(server.requestsReceived()).isZero();
    }

    @Test
    void aServerWithoutHttp2IsAConnectFailureThatSaysSo() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki, List.of(ApplicationProtocolNames.HTTP_1_1), 100,
                Integer.MAX_VALUE));
        SkiClient client = client(server, SkiHttpVersion.HTTP_2, options -> options);

        assertThatThrownBy(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))))
                .isInstanceOf(SkiTransportException.class)
                .hasMessageContaining("chose http/1.1");
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void theJdkTlsProviderWorksToo(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SslContext jdk = SkiTls.clientContext(pki.client().chain(), pki.client().privateKey(),
                List.of(pki.ca().certificate()), version, SslProvider.JDK);
        SkiClient client = client(server.address(), jdk, version, options -> options.preferNativeTransport(false));

        assertThat(await(client.execute(SkiRequest.ecdhe(SPKI, SkiHash.SHA256, new byte[] {4})))).containsExactly(4);
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void connectMakesEveryConnectionBeforeTheFirstRequest(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        SkiClient client = client(server, version, options -> options.connections(4));

        await(client.connect());

        assertThat(client.connections()).isEqualTo(4);
        assertThat(server.connectionsAccepted()).isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(SkiHttpVersion.class)
    void closeFailsOutstandingRequestsAndRefusesNewOnes(SkiHttpVersion version) throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki)).behaviour(request -> CannedAnswer.silence());
        SkiClient client = client(server, version, options -> options);
        CompletableFuture<byte[]> pending = client.execute(SkiRequest.rsa(SPKI, new byte[] {1}));
        server.awaitReceived(1);

        client.close();

        assertTransportFailure(() -> await(pending), Kind.CLIENT_CLOSED);
        assertTransportFailure(() -> await(client.execute(SkiRequest.rsa(SPKI, new byte[] {1}))), Kind.CLIENT_CLOSED);
    }

    @Test
    void aSharedEventLoopGroupIsUsedAndLeftRunning() throws Exception {
        SkiTestServer server = server(SkiTestServer.start(pki));
        EventLoopGroup shared = Transports.newGroup(1, true, "shared-test");
        try {
            SkiClient client = client(server, SkiHttpVersion.HTTP_2, options -> options.eventLoopGroup(shared));
            assertThat(await(client.execute(SkiRequest.rsa(SPKI, new byte[] {9})))).containsExactly(9);

            client.close();

            assertThat(shared.isShuttingDown()).isFalse();
        } finally {
            shared.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private SkiTestServer server(SkiTestServer server) {
        toClose.add(server);
        return server;
    }

    private SkiClient client(SkiTestServer server, SkiHttpVersion version,
            UnaryOperator<SkiClientOptions.Builder> options) throws Exception {
        return client(server.address(), SkiTls.clientContext(pkiDirectory, version), version, options);
    }

    private SkiClient client(InetSocketAddress address, SslContext context, SkiHttpVersion version,
            UnaryOperator<SkiClientOptions.Builder> options) {
        SkiClient client = SkiClient.create(context, address,
                options.apply(SkiClientOptions.builder().httpVersion(version)
                        .connectTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(15))).build());
        toClose.add(client);
        return client;
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static void assertTransportFailure(ThrowingCallable call, Kind kind) {
        assertThatThrownBy(call).isInstanceOfSatisfying(SkiTransportException.class,
                e -> assertThat(e.kind()).isEqualTo(kind));
    }
}
