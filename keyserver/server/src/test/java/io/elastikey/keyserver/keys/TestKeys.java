// TestKeys -- a dev CA and certified keys of every type for repository tests; RSA keys generated once per JVM.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

/** Keys and certificates for tests. Every certificate is new; key pairs of a type are shared unless asked fresh. */
final class TestKeys {
    static final CertificateAuthority CA = ca();

    private TestKeys() {
    }

    /** The shared pair of {@code type}. */
    static KeyPair pair(KeyType type) {
        return io.elastikey.protocol.pki.TestKeys.of(type);
    }

    /** A new certificate for the shared pair of {@code type}, for {@code dnsName}. */
    static KeyEntry entry(KeyType type, String dnsName, String... tags) {
        return entry(pair(type), dnsName, tags);
    }

    /** A fresh key of {@code type} with a certificate for {@code dnsName}. */
    static KeyEntry fresh(KeyType type, String dnsName, String... tags) {
        return entry(type.generate(), dnsName, tags);
    }

    static KeyEntry entry(KeyPair pair, String dnsName, String... tags) {
        try {
            X509Certificate certificate = CA.certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, dnsName,
                    List.of(dnsName), Validity.days(30));
            return KeyEntry.generated(pair, List.of(certificate, CA.certificate()), Set.of(tags));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CertificateAuthority ca() {
        try {
            return CertificateAuthority.create("Elastikey Test CA", KeyType.EC_P256, Validity.days(30));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
