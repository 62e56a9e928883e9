// HandshakeTls -- the load generator's client TLS context: one TLS version, maybe one cipher, sessions kept or not.
package io.elastikey.perf.handshake;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSessionContext;

import io.elastikey.protocol.pki.PemFiles;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.internal.tcnative.SSL;

/**
 * Builds the client {@link SslContext} and answers, per connection, whether its handshake resumed a session.
 *
 * <p><b>Provider.</b> BoringSSL (netty-tcnative, {@link SslProvider#OPENSSL}) as the edge itself uses, so the client
 * spends as little CPU per handshake as it can; the JDK's engine only when tcnative does not load, which
 * {@link #description()} says, since it makes the client slower and blind to resumption.
 *
 * <p><b>Sessions.</b> For full handshakes the client session cache is switched off
 * ({@link OpenSslSessionContext#setSessionCacheEnabled}): BoringSSL then stores no session, so none can be offered.
 * For resumption it stays on, keyed by the server name and port given to {@code newHandler}, and session tickets are
 * offered under TLS 1.2 too (Netty offers them only under 1.3 by default), as browsers do. BoringSSL marks TLS 1.3
 * sessions single-use, so each resumed 1.3 connection must read the server's new tickets, which come with its
 * response; see {@link HandshakeAttempt}. Under the JDK fallback the session is invalidated after each full handshake
 * instead.
 *
 * <p><b>Trust.</b> The server's chain is checked against the CA bundle and the server name by the JDK's PKIX trust
 * manager once per distinct chain ({@link OnceVerifiedTrustManager}), or not at all with {@code --insecure}.
 *
 * <p>Whether a handshake resumed is asked of BoringSSL itself ({@code SSL_session_reused}), as the edge's own
 * {@code HandshakeRecorder} does, so the report proves resumption rather than assuming it.
 */
final class HandshakeTls {
    static final String TLS_1_3 = "TLSv1.3";
    static final String TLS_1_2 = "TLSv1.2";

    /** Whether a handshake resumed a session, as the client saw it. */
    enum Resumption { FULL, RESUMED, UNKNOWN }

    private final SslContext context;
    private final String protocol;
    private final boolean openSsl;
    private final boolean resume;

    private HandshakeTls(SslContext context, String protocol, boolean openSsl, boolean resume) {
        this.context = context;
        this.protocol = protocol;
        this.openSsl = openSsl;
        this.resume = resume;
    }

    /**
     * @param protocol   {@code TLSv1.3} or {@code TLSv1.2}, the only one offered
     * @param cipher     the only cipher suite offered (Java or OpenSSL name), or null for the provider's defaults
     * @param caBundle   PEM certificates the server's chain must end at, checked with the server name (once per
     *                   distinct chain: {@link OnceVerifiedTrustManager}); null to trust any certificate
     * @param resume     keep sessions and offer them (else every handshake is full)
     * @param cacheSize  the most sessions kept when resuming
     * @throws IOException              when the CA bundle cannot be read
     * @throws IllegalArgumentException when the cipher is unknown to the provider or unusable with the protocol
     */
    static HandshakeTls build(String protocol, String cipher, Path caBundle, boolean resume, int cacheSize)
            throws IOException {
        boolean openSsl = OpenSsl.isAvailable();
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(openSsl ? SslProvider.OPENSSL : SslProvider.JDK)
                .protocols(protocol);
        if (cipher != null) {
            builder.ciphers(List.of(cipher));
        }
        if (caBundle != null) {
            List<X509Certificate> trusted = PemFiles.readCertificates(caBundle);
            try {
                builder.trustManager(OnceVerifiedTrustManager.trusting(trusted))
                        .endpointIdentificationAlgorithm("HTTPS");
            } catch (GeneralSecurityException e) {
                throw new IOException("cannot trust the certificates in " + caBundle + ": " + e.getMessage(), e);
            }
        } else {
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        if (resume) {
            builder.sessionCacheSize(cacheSize);
        }
        SslContext context = builder.build();
        if (cipher != null && context.cipherSuites().isEmpty()) {
            throw new IllegalArgumentException("cipher " + cipher + " is unknown or cannot be used with " + protocol);
        }
        SSLSessionContext sessions = context.sessionContext();
        if (sessions instanceof OpenSslSessionContext openSslSessions) {
            openSslSessions.setSessionCacheEnabled(resume);
            if (resume) {
                openSslSessions.setTicketKeys(); // no keys: only clears SSL_OP_NO_TICKET, so 1.2 offers tickets
            }
        }
        return new HandshakeTls(context, protocol, openSsl, resume);
    }

    SslContext context() {
        return context;
    }

    /** {@value #TLS_1_3} or {@value #TLS_1_2}. */
    String protocol() {
        return protocol;
    }

    boolean openSsl() {
        return openSsl;
    }

    /** {@code netty-tcnative BoringSSL}, or the JDK with the reason tcnative did not load. */
    String description() {
        return openSsl ? "netty-tcnative " + OpenSsl.versionString()
                : "JDK SSLEngine: netty-tcnative unavailable (" + OpenSsl.unavailabilityCause() + ")";
    }

    /** Called once the handshake completed: what it was, and under the JDK, forgets a full one's session. */
    Resumption completed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine boring) {
            synchronized (boring) {
                long ssl = boring.sslPointer();
                if (ssl == 0) {
                    return Resumption.UNKNOWN; // freed: closed under us
                }
                return SSL.isSessionReused(ssl) ? Resumption.RESUMED : Resumption.FULL;
            }
        }
        if (!resume) {
            engine.getSession().invalidate();
        }
        return Resumption.UNKNOWN;
    }
}
