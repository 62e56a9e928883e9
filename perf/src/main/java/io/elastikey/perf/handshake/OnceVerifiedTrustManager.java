// OnceVerifiedTrustManager -- checks a server chain fully once, then trusts that same chain for that same name.
package io.elastikey.perf.handshake;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The load generator's certificate check. Netty's BoringSSL client hands every server chain to a Java trust manager,
 * and the JDK's PKIX check (path building, an ECDSA or RSA verification in Java, the name check) costs the client
 * more CPU per full handshake than anything else it does, on cores it shares with the server under test. A benchmark
 * meets the same chain thousands of times a second, so this checks a chain with the JDK's PKIX trust manager the
 * first time, and afterwards accepts a chain byte-for-byte identical to the last one that passed, for the same server
 * name. Any other chain or name gets the full check, and a failed check is never remembered.
 *
 * <p>What this gives up, knowingly: a certificate that expires during a run keeps passing until the chain changes.
 * Thread-safe: the remembered chain is one immutable value, replaced whole.
 */
final class OnceVerifiedTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager pkix;
    private volatile Passed last;

    /** A chain that passed, as the DER of each certificate, and the name it passed for. */
    private record Passed(List<byte[]> chain, String serverName) {
        boolean matches(X509Certificate[] other, String name) throws CertificateException {
            if (other.length != chain.size() || !serverName.equals(name)) {
                return false;
            }
            for (int i = 0; i < other.length; i++) {
                if (!Arrays.equals(chain.get(i), other[i].getEncoded())) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Trusts chains ending at one of {@code anchors}, checked by the JDK's PKIX trust manager. */
    static OnceVerifiedTrustManager trusting(List<X509Certificate> anchors) throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException("cannot make an empty key store", e);
        }
        for (int i = 0; i < anchors.size(); i++) {
            store.setCertificateEntry("ca-" + i, anchors.get(i));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(store);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509ExtendedTrustManager extended) {
                return new OnceVerifiedTrustManager(extended);
            }
        }
        throw new GeneralSecurityException("the PKIX trust manager factory made no X509ExtendedTrustManager");
    }

    private OnceVerifiedTrustManager(X509ExtendedTrustManager pkix) {
        this.pkix = pkix;
    }

    /** The one method BoringSSL's client calls: the engine carries the server name and the name check's setting. */
    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        String name = String.valueOf(engine.getPeerHost());
        Passed passed = last;
        if (passed != null && passed.matches(chain, name)) {
            return;
        }
        pkix.checkServerTrusted(chain, authType, engine);
        List<byte[]> encoded = new ArrayList<>(chain.length);
        for (X509Certificate certificate : chain) {
            encoded.add(certificate.getEncoded());
        }
        last = new Passed(List.copyOf(encoded), name);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("the load generator is a client only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("the load generator is a client only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("the load generator is a client only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
