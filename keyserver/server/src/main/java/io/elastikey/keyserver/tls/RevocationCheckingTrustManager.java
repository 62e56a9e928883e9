package io.elastikey.keyserver.tls;

import java.net.Socket;
import java.security.cert.CRLReason;
import java.security.cert.CertificateException;
import java.security.cert.CertificateRevokedException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Verifies client chains with the JDK's PKIX trust manager (signature, validity, CA
 * constraints), then refuses any certificate of the chain listed in a configured CRL.
 *
 * <p>Only CRLs from a local file are consulted; no network fetch ever happens during a
 * handshake. A CRL whose issuer matches no certificate in the chain is simply not relevant.
 */
final class RevocationCheckingTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;
    private final List<X509CRL> crls;

    RevocationCheckingTrustManager(X509ExtendedTrustManager delegate, List<X509CRL> crls) {
        this.delegate = delegate;
        this.crls = List.copyOf(crls);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType, engine);
        checkRevocation(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType, socket);
        checkRevocation(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.checkClientTrusted(chain, authType);
        checkRevocation(chain);
    }

    /**
     * Throws a {@link CertificateRevokedException} for the first certificate of {@code chain} a CRL lists: the type
     * by which the TLS engine knows to send {@code certificate_revoked}.
     */
    private void checkRevocation(X509Certificate[] chain) throws CertificateException {
        for (X509Certificate certificate : chain) {
            for (X509CRL crl : crls) {
                X509CRLEntry entry = crl.getIssuerX500Principal().equals(certificate.getIssuerX500Principal())
                        ? crl.getRevokedCertificate(certificate) : null;
                if (entry != null) {
                    CRLReason reason = entry.getRevocationReason() == null
                            ? CRLReason.UNSPECIFIED : entry.getRevocationReason();
                    throw new CertificateRevokedException(entry.getRevocationDate(), reason,
                            crl.getIssuerX500Principal(), Map.of());
                }
            }
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("this trust manager only verifies clients");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("this trust manager only verifies clients");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("this trust manager only verifies clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }
}
