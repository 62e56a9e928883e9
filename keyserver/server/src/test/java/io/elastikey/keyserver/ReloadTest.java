package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;

import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the server watches, changed under a running server ({@code tls.reload-interval=200ms}): a replaced server
 * certificate is presented on new connections while connections opened before keep working; a policy that stops
 * granting a client takes effect on that client's next request on its open connection; a broken file leaves the
 * previous certificate or policy in force. Each test has its own server, since each changes its files.
 */
class ReloadTest {
    private static final String DENIED = "{\"error\":\"request denied\"}";

    @TempDir
    Path dir;
    private KeyServerFixture fixture;
    private TestKey key;

    @BeforeEach
    void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of(
                "tls.reload-interval", "200ms",
                "authz.denied-answer", "denied", // so a denial is told apart from an unknown key
                "policy", dir.resolve("policy.conf").toString()));
        key = fixture.addKeys(List.of(KeyType.EC_P256), Set.of("test")).get(0);
        fixture.writePolicy(policyGranting("all"));
        fixture.start();
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void replacedServerCertificateIsPresentedToNewConnectionsWhileOpenOnesKeepWorking() throws Exception {
        HttpClient before = fixture.client(HttpClient.Version.HTTP_2);
        HttpResponse<String> first = fixture.post(before, goodJson());
        assertThat(first.statusCode()).isEqualTo(200);
        BigInteger oldSerial = fixture.pki().server().certificate().getSerialNumber();
        assertThat(serverSerial(first)).isEqualTo(oldSerial);

        IssuedCertificate renewed = fixture.pki().ca().issueServer("localhost", DevPki.DEFAULT_SERVER_NAMES,
                KeyType.EC_P256, Validity.days(2));
        replaceServerIdentity(renewed);
        BigInteger newSerial = renewed.certificate().getSerialNumber();

        KeyServerFixture.await("a new connection is offered the new certificate",
                () -> handshakeSerial().equals(newSerial));
        for (HttpClient.Version version : HttpClient.Version.values()) {
            HttpResponse<String> fresh = fixture.post(fixture.client(version), goodJson());
            assertThat(fresh.statusCode()).isEqualTo(200);
            assertThat(serverSerial(fresh)).as(version.toString()).isEqualTo(newSerial);
        }
        HttpResponse<String> again = fixture.post(before, goodJson());
        assertThat(again.statusCode()).as("the connection opened before the reload").isEqualTo(200);
        assertThat(sessionId(again)).as("on the same connection").isEqualTo(sessionId(first));
        assertThat(serverSerial(again)).isEqualTo(oldSerial);
        assertThat(fixture.metrics().value("elastikey_tls_reloads_total")).isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void brokenCertificateFileKeepsThePreviousCertificate() throws Exception {
        BigInteger oldSerial = fixture.pki().server().certificate().getSerialNumber();
        try (LogCapture logs = LogCapture.asConfigured()) {
            KeyServerFixture.replaceFile(fixture.dataDir().resolve("pki").resolve(DevPki.SERVER_CERTIFICATE),
                    "-----BEGIN CERTIFICATE-----\nnot a certificate\n".getBytes(StandardCharsets.US_ASCII));

            KeyServerFixture.await("the failed reload is logged", () -> logs.text().contains("reloading TLS"));
        }

        assertThat(handshakeSerial()).isEqualTo(oldSerial);
        assertThat(fixture.post(fixture.client(HttpClient.Version.HTTP_2), goodJson()).statusCode()).isEqualTo(200);
    }

    @Test
    void policyNoLongerGrantingTheClientDeniesItsNextRequestOnAnOpenConnection() throws Exception {
        HttpClient h2 = fixture.client(HttpClient.Version.HTTP_2);
        HttpClient h1 = fixture.client(HttpClient.Version.HTTP_1_1);
        HttpResponse<String> h2First = fixture.post(h2, goodJson());
        HttpResponse<String> h1First = fixture.post(h1, goodJson());
        assertThat(h2First.statusCode()).isEqualTo(200);
        assertThat(h1First.statusCode()).isEqualTo(200);

        fixture.writePolicy(policyGranting("tag elsewhere"));

        KeyServerFixture.await("the new policy denies the client", () -> fixture.post(h2, goodJson())
                .statusCode() == 403);
        HttpResponse<String> h2Denied = fixture.post(h2, goodJson());
        HttpResponse<String> h1Denied = fixture.post(h1, goodJson());
        assertThat(h2Denied.statusCode()).isEqualTo(403);
        assertThat(h2Denied.body()).isEqualTo(DENIED);
        assertThat(sessionId(h2Denied)).as("HTTP/2: the same connection").isEqualTo(sessionId(h2First));
        assertThat(h1Denied.statusCode()).isEqualTo(403);
        assertThat(h1Denied.body()).isEqualTo(DENIED);
        assertThat(sessionId(h1Denied)).as("HTTP/1.1: the same connection").isEqualTo(sessionId(h1First));

        // And granting again works without reconnecting either.
        fixture.writePolicy(policyGranting("tag test"));
        KeyServerFixture.await("the grant is back", () -> fixture.post(h2, goodJson()).statusCode() == 200);
        assertThat(fixture.post(h1, goodJson()).statusCode()).isEqualTo(200);
    }

    @Test
    void brokenPolicyFileKeepsThePreviousPolicy() throws Exception {
        HttpClient h2 = fixture.client(HttpClient.Version.HTTP_2);
        assertThat(fixture.post(h2, goodJson()).statusCode()).isEqualTo(200);
        try (LogCapture logs = LogCapture.asConfigured()) {
            fixture.writePolicy("rule broken\n  allow everything please\n");

            KeyServerFixture.await("the failed reload is logged",
                    () -> logs.text().contains("reloading access policy failed"));
        }

        assertThat(fixture.post(h2, goodJson()).statusCode()).isEqualTo(200);
        assertThat(fixture.post(fixture.client(HttpClient.Version.HTTP_1_1), goodJson()).statusCode()).isEqualTo(200);
        assertThat(fixture.metrics().value("elastikey_policy_reload_failures_total")).isEqualTo(1.0);
    }

    /**
     * An empty file is what a deploy tool leaves between truncating the policy and writing it: it must not deny
     * every client. Nor a file of comments, nor one with several errors; each refusal is one ERROR line and one
     * count more in /metrics, and the policy in force stays. A good file afterwards is taken again.
     */
    @Test
    void emptyOrUnparsablePolicyKeepsTheLastGoodOneLogsOneLineAndIsCounted() throws Exception {
        HttpClient h2 = fixture.client(HttpClient.Version.HTTP_2);
        assertThat(fixture.post(h2, goodJson()).statusCode()).isEqualTo(200);
        assertThat(fixture.metrics().value("elastikey_policy_reload_failures_total")).isZero();
        double loadedAt = fixture.metrics().value("elastikey_policy_loaded_timestamp_seconds");
        assertThat(loadedAt).isPositive();
        String[] broken = {"", "\n  \n", "# everything moved to the new file\n",
                "rule a\n  allow all\nrule b\n  client cn x\n  allow nothing\n"};
        try (LogCapture logs = LogCapture.asConfigured()) {
            for (int i = 0; i < broken.length; i++) {
                fixture.writePolicy(broken[i]);
                double failures = i + 1;
                KeyServerFixture.await("refusal " + failures + " is counted",
                        () -> fixture.metrics().value("elastikey_policy_reload_failures_total") == failures);
                assertThat(fixture.post(h2, goodJson()).statusCode()).as("after %s", broken[i]).isEqualTo(200);
            }
            List<String> errors = logs.text().lines().filter(line -> line.contains("reloading access policy failed"))
                    .toList();
            assertThat(errors).hasSize(broken.length).allMatch(line -> line.contains(" ERROR "));
            assertThat(errors.get(0)).contains("no rule");
            assertThat(errors.get(3)).contains(":1: ", ":5: "); // both errors of the last file, on the one line
        }
        assertThat(fixture.post(fixture.client(HttpClient.Version.HTTP_1_1), goodJson()).statusCode()).isEqualTo(200);
        assertThat(fixture.metrics().value("elastikey_policy_loaded_timestamp_seconds")).isEqualTo(loadedAt);
        assertThat(fixture.metrics().value("elastikey_policy_reloads_total")).isZero();

        fixture.writePolicy(policyGranting("tag elsewhere"));
        KeyServerFixture.await("the good file is taken", () -> fixture.post(h2, goodJson()).statusCode() == 403);
        assertThat(fixture.metrics().value("elastikey_policy_reloads_total")).isEqualTo(1.0);
        assertThat(fixture.metrics().value("elastikey_policy_reload_failures_total")).isEqualTo(broken.length);
    }

    /** Writes the new key, then the new certificate, each renamed over the old file. */
    private void replaceServerIdentity(IssuedCertificate renewed) throws Exception {
        Path pki = fixture.dataDir().resolve("pki");
        Path key = pki.resolve(".server.key.new");
        Path certificate = pki.resolve(".server.pem.new");
        PemFiles.writePrivateKey(key, renewed.privateKey());
        PemFiles.writeCertificates(certificate, List.of(renewed.certificate()));
        Files.move(key, pki.resolve(DevPki.SERVER_KEY), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        Files.move(certificate, pki.resolve(DevPki.SERVER_CERTIFICATE), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** The serial of the certificate a fresh raw connection is offered. */
    private BigInteger handshakeSerial() throws Exception {
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static BigInteger serverSerial(HttpResponse<String> response) throws Exception {
        SSLSession session = response.sslSession().orElseThrow();
        return ((X509Certificate) session.getPeerCertificates()[0]).getSerialNumber();
    }

    /** Names the TLS session, hence the connection: its ID and when it was created. */
    private static String sessionId(HttpResponse<String> response) {
        SSLSession session = response.sslSession().orElseThrow();
        assertThat(session.getId()).as("a session ID to compare").isNotEmpty();
        return HexFormat.of().formatHex(session.getId()) + "@" + session.getCreationTime();
    }

    private String policyGranting(String grant) throws Exception {
        return "rule development\n  client fingerprint " + KeyServerFixture.fingerprintOf(fixture.pki().client())
                + "\n  allow " + grant + "\n";
    }

    private String goodJson() {
        return """
                {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"AAECAw=="}"""
                .formatted(KeyIds.keyId(key.pair().getPublic()));
    }
}
