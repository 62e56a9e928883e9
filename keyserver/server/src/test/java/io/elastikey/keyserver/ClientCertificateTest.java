package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.netty.handler.ssl.OpenSsl;

import java.io.EOFException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509CRL;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.cert.X509CRLHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CRLConverter;
import org.bouncycastle.cert.jcajce.JcaX509v2CRLBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who gets past the handshake, on a real key server, with each TLS engine it can run: a certificate issued by the
 * configured CA, valid and not revoked, gets answers; no certificate, one from another CA, an expired one and one
 * listed in the CRL file are refused before any request is read, each refusal is counted in
 * {@code elastikey_tls_handshake_failures_total}, and under BoringSSL the client is told why by the alert
 * ({@code unknown_ca}, {@code certificate_expired}, {@code certificate_revoked}, ...), never {@code internal_error}. Clients present their certificate unconditionally (see
 * {@link KeyServerFixture#tls}), so every refusal is the server's.
 */
class ClientCertificateTest {

    @Nested
    class WithBoringSsl extends Refusals {
        WithBoringSsl() {
            super("openssl");
        }
    }

    @Nested
    class WithJdkTls extends Refusals {
        WithJdkTls() {
            super("jdk");
        }
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Refusals {
        private static final String CLIENT_NAME = "edge-client";

        private final String provider;
        private KeyServerFixture fixture;
        private TestKey key;
        private CertificateAuthority ca;
        private IssuedCertificate valid;
        private IssuedCertificate revoked;
        private IssuedCertificate revokedLater;
        private Path crlFile;

        Refusals(String provider) {
            this.provider = provider;
        }

        @BeforeAll
        void start(@TempDir Path dir) throws Exception {
            assumeTrue(!provider.equals("openssl") || OpenSsl.isAvailable(), "BoringSSL does not load here");
            crlFile = dir.resolve("clients.crl");
            fixture = KeyServerFixture.create(dir, Map.of(
                    "tls.provider", provider,
                    "tls.crl", crlFile.toString(),
                    "tls.reload-interval", "200ms",
                    "policy", dir.resolve("policy.conf").toString()));
            key = fixture.addKeys(List.of(KeyType.EC_P256), Set.of("test")).get(0);
            ca = fixture.pki().ca();
            valid = issue(ca, Validity.days(1));
            revoked = issue(ca, Validity.days(1));
            revokedLater = issue(ca, Validity.days(1));
            Files.writeString(crlFile, pem(crl(revoked)), StandardCharsets.US_ASCII);
            fixture.writePolicy("rule edge\n  client cn " + CLIENT_NAME + "\n  allow all\n");
            fixture.start();
        }

        @AfterAll
        void stop() {
            if (fixture != null) {
                fixture.close();
            }
        }

        @Test
        void certificateFromTheCaIsServed() throws Exception {
            assertThat(request(valid)).isEqualTo(200);
        }

        @Test
        void noCertificateIsRefused() throws Exception {
            assertRefusedAndCounted(fixture.tls(null), null);
        }

        @Test
        void certificateFromAnotherCaIsRefused() throws Exception {
            CertificateAuthority stranger = CertificateAuthority.create("Stranger CA", KeyType.EC_P256,
                    Validity.days(1));

            assertRefusedAndCounted(fixture.tls(issue(stranger, Validity.days(1))), "unknown_ca");
        }

        @Test
        void certificateFromAnotherCaWithTheSameNameIsRefused() throws Exception {
            // Same subject as the dev CA, different key: only the signature tells them apart.
            CertificateAuthority impostor = CertificateAuthority.create(
                    ca.certificate().getSubjectX500Principal().getName().replaceFirst("^CN=", ""), KeyType.EC_P256,
                    Validity.days(1));

            // The path to the named CA is found and its signature fails: a bad certificate rather than an unknown CA.
            assertRefusedAndCounted(fixture.tls(issue(impostor, Validity.days(1))), "bad_certificate");
        }

        @Test
        void expiredCertificateIsRefused() throws Exception {
            Instant now = Instant.now();
            IssuedCertificate expired = issue(ca, new Validity(now.minus(Duration.ofDays(10)),
                    now.minus(Duration.ofDays(1))));

            assertRefusedAndCounted(fixture.tls(expired), "certificate_expired");
        }

        @Test
        void notYetValidCertificateIsRefused() throws Exception {
            Instant now = Instant.now();
            IssuedCertificate future = issue(ca, new Validity(now.plus(Duration.ofDays(1)),
                    now.plus(Duration.ofDays(10))));

            assertRefusedAndCounted(fixture.tls(future), "certificate_expired");
        }

        @Test
        void revokedCertificateIsRefusedWhileAnUnrevokedOneIsServed() throws Exception {
            assertRefusedAndCounted(fixture.tls(revoked), "certificate_revoked");

            assertThat(request(valid)).isEqualTo(200);
        }

        @Test
        void replacedCrlRefusesANewlyRevokedCertificate() throws Exception {
            assertThat(request(revokedLater)).isEqualTo(200);

            // DER this time; the file is watched like the other TLS files.
            KeyServerFixture.replaceFile(crlFile, crl(revoked, revokedLater).getEncoded());

            KeyServerFixture.await("the new CRL refuses the certificate", () -> !served(fixture.tls(revokedLater)));
            assertRefused(fixture.tls(revokedLater));
            assertRefused(fixture.tls(revoked));
            assertThat(request(valid)).isEqualTo(200);
        }

        /**
         * A CRL file that lost its content (a truncated download) holds no CRL at all: taken, it would end
         * revocation checking. The reload is refused and counted, and the revoked certificate stays refused.
         */
        @Test
        void emptyCrlFileKeepsTheRevocationsInForce() throws Exception {
            byte[] good = Files.readAllBytes(crlFile);
            double failures = fixture.metrics().value("elastikey_tls_reload_failures_total");
            KeyServerFixture.replaceFile(crlFile, new byte[0]);

            KeyServerFixture.await("the empty CRL is refused",
                    () -> fixture.metrics().value("elastikey_tls_reload_failures_total") == failures + 1);
            assertRefused(fixture.tls(revoked));
            assertThat(request(valid)).isEqualTo(200);

            double reloads = fixture.metrics().value("elastikey_tls_reloads_total");
            KeyServerFixture.replaceFile(crlFile, good);
            KeyServerFixture.await("the CRL is back",
                    () -> fixture.metrics().value("elastikey_tls_reloads_total") > reloads);
        }

        private static IssuedCertificate issue(CertificateAuthority issuer, Validity validity) throws Exception {
            return issuer.issueClient(CLIENT_NAME, List.of(), KeyType.EC_P256, validity);
        }

        /** An SKI request over a raw connection presenting {@code identity}; the answer's status. */
        private int request(IssuedCertificate identity) throws Exception {
            try (SSLSocket socket = fixture.connect(fixture.tls(identity))) {
                RawHttp.write(socket, RawHttp.post(goodJson()));
                return RawHttp.readAnswer(socket).status();
            }
        }

        /** Whether a connection with {@code tls} gets any answer at all. */
        private boolean served(SSLContext tls) {
            try (SSLSocket socket = fixture.connect(tls)) {
                RawHttp.write(socket, RawHttp.post(goodJson()));
                RawHttp.readAnswer(socket);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        /**
         * Refused, counted, and (BoringSSL) told with {@code alert}, the TLS alert that names the reason; never
         * {@code internal_error}, which would send an operator looking for a bug in the server.
         */
        private void assertRefusedAndCounted(SSLContext tls, String alert) throws Exception {
            double before = handshakeFailures();

            Throwable refusal = assertRefused(tls);

            String received = receivedAlert(refusal);
            assertThat(received).as("alert received").isNotEqualTo("internal_error");
            if (alert != null && provider.equals("openssl")) {
                assertThat(received).as("alert received").isEqualTo(alert);
            }

            KeyServerFixture.await("the refusal is counted", () -> handshakeFailures() > before);
            assertThat(handshakeFailures() - before).as("handshake failures counted").isEqualTo(1.0);
        }

        /**
         * The connection yields no answer: the handshake throws, or (TLS 1.3, where the client finishes first) the
         * first write or read does, or the server just closes.
         */
        private Throwable assertRefused(SSLContext tls) {
            Throwable[] thrown = new Throwable[1];
            assertThatThrownBy(() -> {
                try (SSLSocket socket = fixture.connect(tls)) {
                    RawHttp.write(socket, RawHttp.post(goodJson()));
                    int first = socket.getInputStream().read();
                    if (first < 0) {
                        throw new EOFException("closed without an answer");
                    }
                    throw new AssertionError("the server answered: " + (char) first
                            + RawHttp.readAnswer(socket).head());
                }
            }).isInstanceOf(IOException.class).satisfies(e -> thrown[0] = e);
            return thrown[0];
        }

        /** The alert named by "Received fatal alert: X" in {@code refusal} or its causes; {@code null} when none. */
        private static String receivedAlert(Throwable refusal) {
            for (Throwable t = refusal; t != null; t = t.getCause()) {
                String message = t.getMessage();
                int at = message == null ? -1 : message.indexOf("Received fatal alert: ");
                if (at >= 0) {
                    return message.substring(at + "Received fatal alert: ".length()).strip();
                }
            }
            return null;
        }

        private double handshakeFailures() throws Exception {
            return fixture.metrics().value("elastikey_tls_handshake_failures_total");
        }

        private String goodJson() {
            return """
                    {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"AAECAw=="}"""
                    .formatted(KeyIds.keyId(key.pair().getPublic()));
        }

        /** A CRL from the dev CA revoking {@code certificates}, signed with the CA's key. */
        private X509CRL crl(IssuedCertificate... certificates) throws Exception {
            Instant now = Instant.now();
            X509v2CRLBuilder builder = new JcaX509v2CRLBuilder(ca.certificate(),
                    Date.from(now.minus(Duration.ofHours(1))));
            builder.setNextUpdate(Date.from(now.plus(Duration.ofDays(7))));
            for (IssuedCertificate certificate : certificates) {
                BigInteger serial = certificate.certificate().getSerialNumber();
                builder.addCRLEntry(serial, Date.from(now.minus(Duration.ofMinutes(30))), CRLReason.keyCompromise);
            }
            X509CRLHolder holder = builder.build(new JcaContentSignerBuilder(ca.keyType().signatureAlgorithm())
                    .build(ca.privateKey()));
            return new JcaX509CRLConverter().getCRL(holder);
        }

        private static String pem(X509CRL crl) throws Exception {
            Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            return "-----BEGIN X509 CRL-----\n" + base64.encodeToString(crl.getEncoded())
                    + "\n-----END X509 CRL-----\n";
        }
    }
}
