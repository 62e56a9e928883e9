// AuthorizationOverTlsTest -- section 10's refusals on a real mutual-TLS connection over loopback.
package io.elastikey.keyserver.authz;

import static io.elastikey.keyserver.authz.TestCertificates.key;
import static io.elastikey.keyserver.authz.TestCertificates.keyId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiError;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The path a request takes through authorization, on a real TLS 1.3 connection with client authentication:
 * the server resolves the client's grants once from the certificate the handshake verified, then answers each
 * key request {@code ok} or {@code request denied}. The SKI endpoint does the same with JSON over HTTP; this
 * stand-in speaks one line per request so the test is about authorization alone. Clients without a certificate,
 * from another CA or with an expired certificate never get as far as a request.
 */
class AuthorizationOverTlsTest {
    private static final int TIMEOUT_MILLIS = 10_000;
    private static final char[] NO_PASSWORD = new char[0];
    private static final LoadedKey EU_KEY = key(keyId('e'), Set.of("eu"), List.of("shop.example"));
    private static final LoadedKey US_KEY = key(keyId('f'), Set.of("us"), List.of("shop.example.com"));
    private static final Map<String, LoadedKey> KEYS = Map.of(EU_KEY.keyId(), EU_KEY, US_KEY.keyId(), US_KEY);

    private static ExecutorService serverThread;
    private static CertificateAuthority ca;
    private static IssuedCertificate server;
    private static AccessPolicy policy;

    @BeforeAll
    static void start() throws Exception {
        serverThread = Executors.newSingleThreadExecutor();
        ca = CertificateAuthority.create("Authz CA", KeyType.EC_P256, Validity.days(1));
        server = ca.issueServer("localhost", List.of("127.0.0.1"), KeyType.EC_P256, Validity.days(1));
        policy = AccessPolicy.parse("test", """
                rule edge-eu
                  client cn edge-eu-1
                  allow tag eu
                """);
    }

    @AfterAll
    static void stop() {
        serverThread.shutdownNow();
    }

    @Test
    void authorizedClientIsAnsweredOk() throws Exception {
        IssuedCertificate client = ca.issueClient("edge-eu-1", List.of(), KeyType.EC_P256, Validity.days(1));

        assertThat(request(client, EU_KEY.keyId())).isEqualTo("ok");
    }

    @Test
    void clientNotAuthorizedForTheKeyIsDenied() throws Exception {
        IssuedCertificate client = ca.issueClient("edge-eu-1", List.of(), KeyType.EC_P256, Validity.days(1));

        assertThat(request(client, US_KEY.keyId())).isEqualTo(SkiError.REQUEST_DENIED.text());
    }

    @Test
    void clientMatchingNoRuleIsDenied() throws Exception {
        IssuedCertificate client = ca.issueClient("edge-us-1", List.of(), KeyType.EC_P256, Validity.days(1));

        assertThat(request(client, EU_KEY.keyId())).isEqualTo(SkiError.REQUEST_DENIED.text());
    }

    @Test
    void clientWithoutCertificateIsRefusedAtTheHandshake() throws Exception {
        assertRefused(null);
    }

    @Test
    void clientFromAnotherCaIsRefusedAtTheHandshake() throws Exception {
        CertificateAuthority stranger = CertificateAuthority.create("Stranger CA", KeyType.EC_P256, Validity.days(1));

        assertRefused(stranger.issueClient("edge-eu-1", List.of(), KeyType.EC_P256, Validity.days(1)));
    }

    @Test
    void expiredClientCertificateIsRefusedAtTheHandshake() throws Exception {
        Instant now = Instant.now();
        Validity past = new Validity(now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));

        assertRefused(ca.issueClient("edge-eu-1", List.of(), KeyType.EC_P256, past));
    }

    /** Connects with {@code client} (or no certificate), asks for {@code keyId}, returns the answer. */
    private static String request(IssuedCertificate client, String keyId) throws Exception {
        try (SSLServerSocket listener = listen()) {
            Future<String> served = serverThread.submit(() -> serveOne(listener));
            String answer;
            try (SSLSocket socket = connect(client, listener.getLocalPort())) {
                new PrintWriter(socket.getOutputStream(), true, StandardCharsets.US_ASCII).println(keyId);
                answer = reader(socket).readLine();
            }
            // After the client's close: a TLS 1.3 server socket waits for the peer's close_notify.
            assertThat(served.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)).isEqualTo(answer);
            return answer;
        }
    }

    private static void assertRefused(IssuedCertificate client) throws Exception {
        try (SSLServerSocket listener = listen()) {
            Future<String> served = serverThread.submit(() -> serveOne(listener));
            // TLS 1.3: the client finishes its half first and learns of the refusal on its first read.
            assertThatThrownBy(() -> {
                try (SSLSocket socket = connect(client, listener.getLocalPort())) {
                    new PrintWriter(socket.getOutputStream(), true, StandardCharsets.US_ASCII).println(EU_KEY.keyId());
                    if (reader(socket).readLine() == null) {
                        throw new IOException("closed without an answer");
                    }
                }
            }).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> served.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SSLHandshakeException.class);
        }
    }

    /** What the SKI handler does: grants once per connection, a permits check per request. */
    private static String serveOne(SSLServerSocket listener) throws Exception {
        try (SSLSocket socket = (SSLSocket) listener.accept()) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.startHandshake();
            ClientIdentity identity = ClientIdentity.of((X509Certificate) socket.getSession().getPeerCertificates()[0]);
            Grants grants = policy.grantsFor(identity);
            LoadedKey key = KEYS.get(reader(socket).readLine());
            String answer = key != null && grants.permits(key) ? "ok" : SkiError.REQUEST_DENIED.text();
            new PrintWriter(socket.getOutputStream(), true, StandardCharsets.US_ASCII).println(answer);
            return answer;
        }
    }

    private static SSLServerSocket listen() throws Exception {
        SSLServerSocket listener = (SSLServerSocket) context(server).getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress());
        listener.setNeedClientAuth(true);
        listener.setEnabledProtocols(new String[] {"TLSv1.3"});
        listener.setSoTimeout(TIMEOUT_MILLIS);
        return listener;
    }

    private static SSLSocket connect(IssuedCertificate client, int port) throws Exception {
        SSLSocket socket = (SSLSocket) context(client).getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        socket.setEnabledProtocols(new String[] {"TLSv1.3"});
        socket.startHandshake();
        return socket;
    }

    private static BufferedReader reader(SSLSocket socket) throws IOException {
        return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
    }

    /** A context presenting {@code identity} (none when null) and trusting only the test CA. */
    private static SSLContext context(IssuedCertificate identity) throws Exception {
        KeyManager[] keyManagers = null;
        if (identity != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("identity", identity.privateKey(), NO_PASSWORD, identity.chainArray());
            KeyManagerFactory factory = KeyManagerFactory.getInstance("PKIX");
            factory.init(keys, NO_PASSWORD);
            keyManagers = factory.getKeyManagers();
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance("PKIX");
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(keyManagers, trustManagers.getTrustManagers(), null);
        return context;
    }
}
