// RespTls -- the RESP port's optional TLS: a server certificate, and client certificates when a CA is given.
package io.elastikey.resp;

import io.elastikey.protocol.pki.PemFiles;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Builds the server context the way the key server does ({@code keyserver/tls/ServerTlsContexts}),
 * from the same PEM files ({@link PemFiles}; {@code ./elastikey pki init} makes a development set):
 * TLS 1.3 and 1.2 only, Netty's default engine (OpenSSL when netty-tcnative loads, else the JDK's).
 * This is what {@code redis-cli --tls --cacert ca.pem} and Lettuce's {@code rediss://} expect, as
 * Redis's {@code tls-port} does. With a client CA, clients must present a certificate that chains
 * to it (Redis's {@code tls-auth-clients yes}); AUTH still applies on top.
 */
public final class RespTls {
    private RespTls() {
    }

    /**
     * @param certificate the server's certificate chain (PEM), leaf first
     * @param key its private key (PEM, PKCS#8)
     * @param clientCa CA certificates (PEM) client certificates must chain to, or null for no client certificates
     */
    public static SslContext serverContext(Path certificate, Path key, Path clientCa) throws IOException {
        List<X509Certificate> chain = PemFiles.readCertificates(certificate);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("--tls-cert " + certificate + " holds no certificate");
        }
        SslContextBuilder b = SslContextBuilder.forServer(PemFiles.readPrivateKey(key), chain)
                .protocols("TLSv1.3", "TLSv1.2");
        if (clientCa != null) {
            List<X509Certificate> authorities = PemFiles.readCertificates(clientCa);
            if (authorities.isEmpty()) {
                throw new IllegalArgumentException("--tls-client-ca " + clientCa + " holds no certificate");
            }
            b.trustManager(authorities.toArray(X509Certificate[]::new)).clientAuth(ClientAuth.REQUIRE);
        }
        return b.build();
    }
}
