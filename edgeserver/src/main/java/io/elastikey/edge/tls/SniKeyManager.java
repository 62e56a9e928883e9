package io.elastikey.edge.tls;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * Picks the certificate chain for each handshake from the client's SNI name, and has no private keys at all:
 * {@link #getPrivateKey} answers {@code null}, which netty-tcnative accepts when a private-key method is set,
 * so BoringSSL sends every signature and decryption to {@link RemoteKeyMethod}.
 *
 * <p>Netty asks once per key type the client's cipher suites allow ({@code RSA}, then {@code EC}, in the
 * client's order), so a name with both an RSA and an ECDSA chain gets the one the client prefers.
 */
final class SniKeyManager extends X509ExtendedKeyManager {
    private final CertificateRegistry registry;

    SniKeyManager(CertificateRegistry registry) {
        this.registry = registry;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        CertificateEntry entry = registry.select(serverName(engine.getHandshakeSession()), keyType);
        return entry == null ? null : entry.alias();
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        CertificateEntry entry = registry.select(null, keyType);
        return entry == null ? null : entry.alias();
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        CertificateEntry entry = registry.byAlias(alias);
        return entry == null ? null : entry.chain();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        CertificateEntry entry = registry.select(null, keyType);
        return entry == null ? null : new String[] {entry.alias()};
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }

    static String serverName(SSLSession session) {
        if (session instanceof ExtendedSSLSession extended) {
            for (SNIServerName name : extended.getRequestedServerNames()) {
                if (name instanceof SNIHostName host) {
                    return host.getAsciiName();
                }
            }
        }
        return null;
    }
}
