// KeyDetails -- one key's public details: its summary, current chain and the fingerprints of its other certificates.
package io.elastikey.keyserver.keys;

import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What {@code keys show} prints. Public data only.
 *
 * @param summary                 the listing fields
 * @param chain                   the current certificate chain, leaf first
 * @param otherCertificateSha1s   SHA-1 fingerprints (hex) of the key's earlier certificates, which still resolve
 */
public record KeyDetails(KeySummary summary, List<X509Certificate> chain, List<String> otherCertificateSha1s) {
    public KeyDetails {
        chain = List.copyOf(chain);
        otherCertificateSha1s = List.copyOf(otherCertificateSha1s);
    }
}
