// MutualTlsHandshakeTest -- dev PKI certificates drive a real TLS 1.3 handshake with client auth over loopback.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class MutualTlsHandshakeTest {
    private static final String LOOPBACK = "127.0.0.1";
    private static final int TIMEOUT_MILLIS = 10_000;
    private static final byte[] PING = "ping".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PONG = "pong".getBytes(StandardCharsets.US_ASCII);

    private static ExecutorService serverThread;
    private static CertificateAuthority ca;

    @BeforeAll
    static void start() throws Exception {
        serverThread = Executors.newSingleThreadExecutor();
        ca = CertificateAuthority.create("Handshake CA", KeyType.EC_P256, Validity.days(1));
    }

    @AfterAll
    static void stop() {
        serverThread.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(names = {"RSA_2048", "EC_P256", "EC_P384", "ED25519"})
    void issuedCertificatesCompleteAMutualTls13Handshake(KeyType type) throws Exception {
        IssuedCertificate server = ca.issueServer("localhost", List.of("localhost", LOOPBACK), type, Validity.days(1));
        IssuedCertificate client = ca.issueClient("edge-1", List.of(), type, Validity.days(1));

        try (SSLServerSocket listener = listen(TlsContexts.of(server, ca.certificate()))) {
            Future<SSLSession> serverSide = serverThread.submit(() -> serveOnePing(listener));
            SSLSession clientSide = pingPong(TlsContexts.of(client, ca.certificate()), listener.getLocalPort());

            assertThat(clientSide.getProtocol()).isEqualTo("TLSv1.3");
            assertThat(clientSide.getPeerCertificates()[0]).isEqualTo(server.certificate());
            SSLSession session = serverSide.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            assertThat(session.getProtocol()).isEqualTo("TLSv1.3");
            assertThat(session.getPeerPrincipal().getName()).isEqualTo("CN=edge-1");
        }
    }

    @Test
    void clientCertificateFromAnotherCaIsRefused() throws Exception {
        IssuedCertificate server = ca.issueServer("localhost", List.of(LOOPBACK), KeyType.EC_P256, Validity.days(1));
        CertificateAuthority stranger = CertificateAuthority.create("Stranger CA", KeyType.EC_P256, Validity.days(1));
        IssuedCertificate intruder = stranger.issueClient("edge-1", List.of(), KeyType.EC_P256, Validity.days(1));

        try (SSLServerSocket listener = listen(TlsContexts.of(server, ca.certificate()))) {
            Future<SSLSession> serverSide = serverThread.submit(() -> serveOnePing(listener));

            assertThatThrownBy(() -> pingPong(TlsContexts.of(intruder, ca.certificate()), listener.getLocalPort()))
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> serverSide.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SSLHandshakeException.class);
        }
    }

    @Test
    void expiredServerCertificateIsRefusedByTheClient() throws Exception {
        Instant now = Instant.now();
        Validity past = new Validity(now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));
        IssuedCertificate server = ca.issueServer("localhost", List.of(LOOPBACK), KeyType.EC_P256, past);
        IssuedCertificate client = ca.issueClient("edge-1", List.of(), KeyType.EC_P256, Validity.days(1));

        try (SSLServerSocket listener = listen(TlsContexts.of(server, ca.certificate()))) {
            Future<SSLSession> serverSide = serverThread.submit(() -> serveOnePing(listener));

            assertThatThrownBy(() -> pingPong(TlsContexts.of(client, ca.certificate()), listener.getLocalPort()))
                    .isInstanceOf(SSLHandshakeException.class);
            assertThatThrownBy(() -> serverSide.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS))
                    .isInstanceOf(ExecutionException.class);
        }
    }

    private static SSLServerSocket listen(SSLContext context) throws IOException {
        SSLServerSocket listener = (SSLServerSocket) context.getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getByName(LOOPBACK));
        listener.setNeedClientAuth(true);
        listener.setEnabledProtocols(new String[] {"TLSv1.3"});
        listener.setSoTimeout(TIMEOUT_MILLIS);
        return listener;
    }

    /** Accepts one connection, answers its ping with a pong, and returns the session. */
    private static SSLSession serveOnePing(SSLServerSocket listener) throws IOException {
        try (SSLSocket socket = (SSLSocket) listener.accept()) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.startHandshake();
            expect(socket.getInputStream().readNBytes(PING.length), PING);
            socket.getOutputStream().write(PONG);
            socket.getOutputStream().flush();
            return socket.getSession();
        }
    }

    /**
     * Connects to {@code port} as a client checking the server's IP address against its certificate, sends a ping
     * and waits for the pong. In TLS 1.3 the server judges the client certificate after the client has finished its
     * half of the handshake, so a refused client learns of it on its first read.
     */
    private static SSLSession pingPong(SSLContext context, int port) throws IOException {
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(LOOPBACK, port)) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setProtocols(new String[] {"TLSv1.3"});
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            socket.getOutputStream().write(PING);
            socket.getOutputStream().flush();
            expect(socket.getInputStream().readNBytes(PONG.length), PONG);
            return socket.getSession();
        }
    }

    private static void expect(byte[] received, byte[] expected) throws IOException {
        if (received.length < expected.length) {
            throw new EOFException("connection closed after " + received.length + " bytes");
        }
        assertThat(received).isEqualTo(expected);
    }
}
