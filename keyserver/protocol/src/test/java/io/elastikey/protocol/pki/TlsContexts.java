// TlsContexts -- JDK SSLContexts from dev PKI material, for handshake tests.
package io.elastikey.protocol.pki;

import java.security.KeyStore;
import java.security.cert.X509Certificate;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds an {@link SSLContext} the way a JSSE server or client of Elastikey would: an in-memory key store holding
 * the identity, and PKIX trust in one CA certificate. The PKIX key and trust managers check extended key usage and
 * key usage, so a handshake also proves those extensions right.
 */
public final class TlsContexts {
    private static final char[] NO_PASSWORD = new char[0];

    private TlsContexts() {
    }

    public static SSLContext of(IssuedCertificate identity, X509Certificate trustAnchor) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("identity", identity.privateKey(), NO_PASSWORD, identity.chainArray());
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance("PKIX");
        keyManagers.init(keys, NO_PASSWORD);

        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", trustAnchor);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance("PKIX");
        trustManagers.init(trust);

        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }
}
