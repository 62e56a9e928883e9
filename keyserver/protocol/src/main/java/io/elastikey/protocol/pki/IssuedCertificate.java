// IssuedCertificate -- a certificate fresh from the dev CA, with its private key and chain.
package io.elastikey.protocol.pki;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * What a TLS endpoint needs to present itself: its certificate, the matching private key, and the chain to send,
 * leaf first. For the single-level dev PKI the chain is the leaf followed by the CA certificate.
 *
 * <p>{@link #toString()} names the subject and key type only, so logging an instance never prints key material.
 *
 * @param certificate the end-entity certificate
 * @param privateKey the private key of {@code certificate}
 * @param chain {@code certificate} first, then its issuers up to (and including) the CA
 */
public record IssuedCertificate(X509Certificate certificate, PrivateKey privateKey, List<X509Certificate> chain) {
    /**
     * Copies the chain and checks that it belongs to the certificate.
     *
     * @throws IllegalArgumentException when {@code chain} does not start with {@code certificate}
     */
    public IssuedCertificate {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(privateKey, "privateKey");
        chain = List.copyOf(chain);
        if (chain.isEmpty() || !chain.get(0).equals(certificate)) {
            throw new IllegalArgumentException("the chain must start with the certificate it belongs to");
        }
    }

    /** The chain as an array, the form {@code KeyStore.setKeyEntry} and {@code X509KeyManager} take. */
    public X509Certificate[] chainArray() {
        return chain.toArray(new X509Certificate[0]);
    }

    @Override
    public String toString() {
        return "IssuedCertificate[" + certificate.getSubjectX500Principal().getName() + ", serial "
                + certificate.getSerialNumber().toString(16) + ", " + privateKey.getAlgorithm() + " key]";
    }
}
