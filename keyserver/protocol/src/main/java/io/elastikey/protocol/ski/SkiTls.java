// SkiTls -- client-side TLS contexts for SKI: our certificate and key, the CA we trust, ALPN for the HTTP version.
package io.elastikey.protocol.ski;

import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.SSLException;

import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.PemFiles;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolConfig.Protocol;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * Builds the {@link SslContext} an {@link SkiClient} connects with. SKI is mutual TLS, so the context carries the
 * client's certificate and key; it trusts only the given CA bundle (never the system's roots: a key server is
 * private infrastructure), checks the server certificate against the name the client connects to, and offers TLS 1.3
 * and 1.2.
 *
 * <p>The provider is BoringSSL through netty-tcnative where its native library loads, which handshakes several times
 * faster than the JDK's {@code SSLEngine}; the JDK otherwise. {@link #defaultProvider()} says which, for logs.
 *
 * <p>The ALPN offer depends on the HTTP version ({@link SkiHttpVersion#offeredProtocols()}), so a context is built for
 * one version and the client checks that the server chose it.
 */
public final class SkiTls {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private SkiTls() {
    }

    /** BoringSSL (OpenSSL API) when netty-tcnative loads on this machine, else the JDK. */
    public static SslProvider defaultProvider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /**
     * A context from PEM files: {@code certificate} holds the client certificate (its chain may follow),
     * {@code key} its unencrypted PKCS#8 key, {@code caBundle} the certificates the server's chain must end at.
     *
     * @throws IOException when a file is missing or does not hold what it should (the message names the file)
     */
    public static SslContext clientContext(Path certificate, Path key, Path caBundle, SkiHttpVersion version)
            throws IOException {
        return clientContext(PemFiles.readCertificates(certificate), PemFiles.readPrivateKey(key),
                PemFiles.readCertificates(caBundle), version, defaultProvider());
    }

    /** A context from a development PKI directory: {@code client.pem}, {@code client.key} and {@code ca.pem}. */
    public static SslContext clientContext(Path devPkiDirectory, SkiHttpVersion version) throws IOException {
        return clientContext(devPkiDirectory.resolve(DevPki.CLIENT_CERTIFICATE),
                devPkiDirectory.resolve(DevPki.CLIENT_KEY), devPkiDirectory.resolve(DevPki.CA_CERTIFICATE), version);
    }

    /**
     * A context from certificates and a key already in memory.
     *
     * @param chain   the client certificate first, then any intermediates
     * @param trusted the trust anchors for the server's certificate
     * @param version the HTTP version ALPN offers, or {@code null} to offer none (the Keyless protocol)
     */
    public static SslContext clientContext(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted,
            SkiHttpVersion version, SslProvider provider) throws SSLException {
        if (chain.isEmpty() || trusted.isEmpty()) {
            throw new IllegalArgumentException("need a client certificate and at least one trusted certificate");
        }
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(provider)
                .protocols(PROTOCOLS)
                .keyManager(key, chain)
                .trustManager(trusted)
                .endpointIdentificationAlgorithm("HTTPS");
        if (version != null) {
            builder.applicationProtocolConfig(new ApplicationProtocolConfig(Protocol.ALPN,
                    SelectorFailureBehavior.NO_ADVERTISE, SelectedListenerFailureBehavior.ACCEPT,
                    version.offeredProtocols()));
        }
        return builder.build();
    }
}
