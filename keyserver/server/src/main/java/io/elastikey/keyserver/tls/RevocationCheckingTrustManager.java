package io.elastikey.keyserver.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.List;
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

    private void checkRevocation(X509Certificate[] chain) throws CertificateException {
        for (X509Certificate certificate : chain) {
            for (X509CRL crl : crls) {
                if (crl.getIssuerX500Principal().equals(certificate.getIssuerX500Principal())
                        && crl.isRevoked(certificate)) {
                    throw new CertificateException("client certificate serial "
                            + certificate.getSerialNumber().toString(16) + " is revoked");
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
