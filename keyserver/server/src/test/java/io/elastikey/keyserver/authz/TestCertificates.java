// TestCertificates -- client certificates with any subject and SANs, and keys with any ID, tags and names.
package io.elastikey.keyserver.authz;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.security.auth.x500.X500Principal;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Self-signed certificates built with Bouncy Castle, because the dev CA issues DNS and IP names only and these
 * tests need URI and e-mail names and odd subjects too. Authorization never checks signatures (TLS did), so a
 * self-signed certificate is as good as an issued one here. One P-256 key pair serves every certificate and key.
 */
final class TestCertificates {
    static final KeyPair KEY_PAIR = KeyType.EC_P256.generate();
    private static final AtomicLong SERIAL = new AtomicLong(1);

    private TestCertificates() {
    }

    /**
     * A certificate with subject {@code subject}, an RFC 2253 name (most specific first, e.g.
     * {@code "CN=edge-1,O=Example"}), and these SANs.
     */
    static X509Certificate certificate(String subject, GeneralName... altNames) throws Exception {
        Instant now = Instant.now();
        X500Name name = X500Name.getInstance(new X500Principal(subject).getEncoded());
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name,
                BigInteger.valueOf(SERIAL.getAndIncrement()), Date.from(now.minus(1, ChronoUnit.HOURS)),
                Date.from(now.plus(1, ChronoUnit.DAYS)), name, KEY_PAIR.getPublic());
        if (altNames.length > 0) {
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(altNames));
        }
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(KEY_PAIR.getPrivate())));
    }

    /** The identity of a client whose certificate has this subject and these SANs. */
    static ClientIdentity client(String subject, GeneralName... altNames) throws Exception {
        return ClientIdentity.of(certificate(subject, altNames));
    }

    static GeneralName dns(String name) {
        return new GeneralName(GeneralName.dNSName, name);
    }

    static GeneralName ip(String address) {
        return new GeneralName(GeneralName.iPAddress, address);
    }

    static GeneralName uri(String uri) {
        return new GeneralName(GeneralName.uniformResourceIdentifier, uri);
    }

    static GeneralName email(String address) {
        return new GeneralName(GeneralName.rfc822Name, address);
    }

    /** A key with this ID, tags and certificate names; the key material is irrelevant to authorization. */
    static LoadedKey key(String keyId, Set<String> tags, List<String> names) {
        return new LoadedKey(keyId, KeyType.EC_P256, KEY_PAIR.getPrivate(), tags, names);
    }

    /** A key ID made of one repeated hex digit, e.g. {@code keyId('a')}. */
    static String keyId(char digit) {
        return String.valueOf(digit).repeat(64);
    }
}
