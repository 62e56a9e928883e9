package io.elastikey.keyserver.tls;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.config.KeyServerConfig.TlsProvider;
import io.elastikey.protocol.config.SettingPaths;
import io.elastikey.protocol.pki.PemException;
import io.elastikey.protocol.pki.PemFiles;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.KeyStore;
import java.security.cert.CRL;
import java.security.cert.CRLException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Builds the key server's TLS context from files: its certificate chain and key, the CA
 * bundle client certificates must chain to, and an optional CRL. A client certificate is
 * always required; TLS 1.2 and 1.3 only; ALPN offers {@code h2} then {@code http/1.1}.
 *
 * <p>BoringSSL (netty-tcnative) is used when it loads, the JDK's engine otherwise, unless
 * {@code tls.provider} forces one. Under BoringSSL a refused client certificate gets the alert that says why
 * ({@link AlertingTrustManager}).
 */
public final class ServerTlsContexts {
    private ServerTlsContexts() {
    }

    /** The provider {@code wanted} resolves to on this machine. */
    public static SslProvider provider(TlsProvider wanted) {
        return switch (wanted) {
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new ConfigException("tls.provider=openssl but netty-tcnative does not load here: "
                            + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            case JDK -> SslProvider.JDK;
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        };
    }

    /** A new server context from the files {@code config} names. */
    public static SslContext build(KeyServerConfig config) throws IOException, GeneralSecurityException {
        List<X509Certificate> chain = read("tls.certificate", config.tlsCertificate(), PemFiles::readCertificates);
        if (chain.isEmpty()) {
            throw new ConfigException("tls.certificate " + config.tlsCertificate() + " holds no certificate");
        }
        List<X509Certificate> authorities = read("tls.client-ca", config.tlsClientCa(), PemFiles::readCertificates);
        if (authorities.isEmpty()) {
            throw new ConfigException("tls.client-ca " + config.tlsClientCa() + " holds no certificate");
        }
        List<X509CRL> crls = config.tlsCrl() == null ? List.of()
                : read("tls.crl", config.tlsCrl(), file -> readCrls(file, authorities));
        return build(read("tls.key", config.tlsKey(), PemFiles::readPrivateKey), chain,
                trustManager(authorities, crls), config.tlsProvider());
    }

    /**
     * A server context set up as the configured one is, over a key and certificates in memory, trusting client
     * certificates of {@code authorities}: what the start-up's requests to itself use ({@code warmup.NetworkWarmup}).
     */
    public static SslContext build(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> authorities,
                                   TlsProvider wanted) throws IOException, GeneralSecurityException {
        return build(key, chain, trustManager(authorities, List.of()), wanted);
    }

    private static SslContext build(PrivateKey key, List<X509Certificate> chain, X509ExtendedTrustManager trust,
                                    TlsProvider wanted) throws IOException {
        SslProvider provider = provider(wanted);
        return SslContextBuilder.forServer(key, chain)
                .sslProvider(provider)
                .trustManager(provider == SslProvider.OPENSSL ? new AlertingTrustManager(trust) : trust)
                .clientAuth(ClientAuth.REQUIRE)
                .protocols("TLSv1.3", "TLSv1.2")
                .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(new ApplicationProtocolConfig(
                        ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                .build();
    }

    private static X509ExtendedTrustManager trustManager(List<X509Certificate> authorities, List<X509CRL> crls)
            throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        for (int i = 0; i < authorities.size(); i++) {
            store.setCertificateEntry("ca-" + i, authorities.get(i));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(store);
        for (TrustManager tm : factory.getTrustManagers()) {
            if (tm instanceof X509ExtendedTrustManager x509) {
                return crls.isEmpty() ? x509 : new RevocationCheckingTrustManager(x509, crls);
            }
        }
        throw new GeneralSecurityException("the JDK offers no X.509 trust manager");
    }

    /** One file a setting names, read by {@code reader}; a failure names the setting, the file and why. */
    private static <T> T read(String setting, Path file, FileReader<T> reader)
            throws IOException, GeneralSecurityException {
        try {
            return reader.read(file);
        } catch (PemException e) {
            throw new ConfigException(setting + " " + e.getMessage(), e); // the message starts with the file
        } catch (IOException e) {
            throw new ConfigException(setting + ": cannot read " + file + ": " + SettingPaths.reason(e, file), e);
        }
    }

    @FunctionalInterface
    private interface FileReader<T> {
        T read(Path file) throws IOException, GeneralSecurityException;
    }

    /**
     * The CRLs in {@code file} (PEM or DER), each verified against the CA that issued it. A file without any is
     * refused: it is what a truncated download leaves, and taking it would turn revocation checking off.
     */
    static List<X509CRL> readCrls(Path file, List<X509Certificate> authorities)
            throws IOException, GeneralSecurityException {
        List<X509CRL> crls = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            for (CRL crl : CertificateFactory.getInstance("X.509").generateCRLs(in)) {
                crls.add((X509CRL) crl);
            }
        } catch (CRLException e) {
            throw new ConfigException("tls.crl " + file + ": not a CRL (PEM or DER): " + e.getMessage(), e);
        }
        if (crls.isEmpty()) {
            throw new ConfigException("tls.crl " + file + " holds no CRL; revocation would no longer be checked");
        }
        for (X509CRL crl : crls) {
            X509Certificate issuer = authorities.stream()
                    .filter(ca -> ca.getSubjectX500Principal().equals(crl.getIssuerX500Principal()))
                    .findFirst()
                    .orElseThrow(() -> new ConfigException("tls.crl " + file + ": CRL issuer "
                            + crl.getIssuerX500Principal() + " is not in tls.client-ca"));
            crl.verify(issuer.getPublicKey());
        }
        return crls;
    }
}
