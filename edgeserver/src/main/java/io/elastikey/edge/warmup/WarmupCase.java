// WarmupCase -- one kind of full handshake the edge's warm-up offers itself: a name, a TLS version, a cipher suite.
package io.elastikey.edge.warmup;

import io.elastikey.edge.tls.CertificateEntry;
import io.elastikey.edge.tls.CertificateRegistry;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A handshake kind the edge serves, so that the warm-up compiles the path each takes: the private-key operation
 * differs by key type (ECDSA or RSA-PSS signatures under TLS 1.3, PKCS#1 or ECDSA under TLS 1.2, an RSA decryption
 * for RSA key exchange), and BoringSSL calls back into Java at different points for each.
 *
 * @param serverName the SNI name, one the certificate covers
 * @param keyType    {@code EC} or {@code RSA}, the certificate's key
 * @param protocol   {@code TLSv1.3} or {@code TLSv1.2}
 * @param cipher     the one TLS 1.2 suite offered; {@code null} under TLS 1.3 (the client's defaults)
 */
public record WarmupCase(String serverName, String keyType, String protocol, String cipher) {

    /**
     * One case per key type the registry holds (its first certificate of that type) and protocol the edge enables:
     * TLS 1.3, TLS 1.2 with the first ECDHE suite of {@code ciphers} for the key type, and for RSA also the first
     * plain RSA key-exchange suite when {@code ciphers} allows one.
     */
    public static List<WarmupCase> of(CertificateRegistry registry, List<String> protocols, List<String> ciphers) {
        List<WarmupCase> cases = new ArrayList<>();
        Set<String> keyTypes = new LinkedHashSet<>();
        for (CertificateEntry entry : registry.entries()) {
            if (!keyTypes.add(entry.keyType())) {
                continue;
            }
            String name = serverName(entry);
            if (protocols.contains("TLSv1.3")) {
                cases.add(new WarmupCase(name, entry.keyType(), "TLSv1.3", null));
            }
            if (protocols.contains("TLSv1.2")) {
                String ecdhe = entry.keyType().equals("EC") ? "TLS_ECDHE_ECDSA_" : "TLS_ECDHE_RSA_";
                first(ciphers, ecdhe).ifPresent(s -> cases.add(new WarmupCase(name, entry.keyType(), "TLSv1.2", s)));
                if (entry.keyType().equals("RSA")) {
                    first(ciphers, "TLS_RSA_").ifPresent(s -> cases.add(new WarmupCase(name, "RSA", "TLSv1.2", s)));
                }
            }
        }
        return List.copyOf(cases);
    }

    /** A name the certificate covers; for a wildcard only, a name under it. */
    private static String serverName(CertificateEntry entry) {
        for (String name : entry.names()) {
            if (!name.startsWith("*.")) {
                return name;
            }
        }
        return "warm-up" + entry.names().get(0).substring(1);
    }

    private static Optional<String> first(List<String> ciphers, String prefix) {
        return ciphers.stream().filter(c -> c.startsWith(prefix)).findFirst();
    }

    /**
     * How often this case comes in one round of the warm-up. Every case runs the same Java path but for its key
     * operation, and an RSA handshake costs the key server some ten times the CPU of an ECDSA one (and the client
     * an RSA verification): with every case in equal turns, three RSA cases of five held a warm-up to 720
     * handshakes/s here, and the edge's path stayed colder than with ECDSA alone.
     */
    int turnsPerRound() {
        return keyType.equals("RSA") ? 1 : 8;
    }

    /** The order the warm-up offers {@code cases} in, as indexes into it: rounds of {@link #turnsPerRound} each. */
    static List<Integer> schedule(List<WarmupCase> cases) {
        List<Integer> order = new ArrayList<>();
        int most = cases.stream().mapToInt(WarmupCase::turnsPerRound).max().orElse(0);
        for (int turn = 0; turn < most; turn++) {
            for (int i = 0; i < cases.size(); i++) {
                if (turn < cases.get(i).turnsPerRound()) {
                    order.add(i);
                }
            }
        }
        return order;
    }

    /**
     * The client side: BoringSSL, as the edge's own, offering only this case and keeping no sessions, so every
     * handshake is full (with Netty's client session cache on, most of them resumed and asked nothing of the key
     * server). It trusts any certificate: it talks to its own process over loopback, and checking the chain is not
     * what it warms.
     */
    SslContext clientContext() throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                .trustManager(InsecureTrustManagerFactory.INSTANCE).protocols(protocol);
        if (cipher != null) {
            builder.ciphers(List.of(cipher));
        }
        SslContext context = builder.build();
        if (context.sessionContext() instanceof OpenSslSessionContext sessions) {
            sessions.setSessionCacheEnabled(false);
        }
        return context;
    }

    @Override
    public String toString() {
        return keyType + " " + protocol.replace("TLSv", "TLS ") + (cipher == null ? "" : " " + cipher);
    }
}
