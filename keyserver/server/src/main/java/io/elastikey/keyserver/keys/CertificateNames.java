// CertificateNames -- the DNS names a certificate is for: its DNS SANs, else its subject CN.
package io.elastikey.keyserver.keys;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;

/**
 * The names authorization matches key policies against ("keys for *.example.com"). Browsers ignore the common name
 * when a certificate has DNS subject alternative names, and so does this: the CN counts only for certificates
 * without any, as in older certificates. Names are lower case, as DNS names compare.
 */
final class CertificateNames {
    private static final int DNS_NAME = 2;

    private CertificateNames() {
    }

    static List<String> of(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> altNames = certificate.getSubjectAlternativeNames();
            if (altNames != null) {
                for (List<?> altName : altNames) {
                    if (altName.size() >= 2 && Integer.valueOf(DNS_NAME).equals(altName.get(0))
                            && altName.get(1) instanceof String name) {
                        names.add(name.toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // An unreadable SAN extension: fall back to the common name, as for a certificate without one.
        }
        if (names.isEmpty()) {
            X500Name subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
            for (RDN rdn : subject.getRDNs(BCStyle.CN)) {
                ASN1Encodable value = rdn.getFirst().getValue();
                if (value instanceof ASN1String text) {
                    names.add(text.getString().toLowerCase(Locale.ROOT));
                }
            }
        }
        return List.copyOf(names);
    }
}
