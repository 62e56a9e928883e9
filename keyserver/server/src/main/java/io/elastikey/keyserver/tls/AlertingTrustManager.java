// AlertingTrustManager -- a refused client certificate gets the TLS alert that names why, under BoringSSL.
package io.elastikey.keyserver.tls;

import io.netty.handler.ssl.OpenSslCertificateException;
import io.netty.internal.tcnative.CertificateVerifier;

import java.net.Socket;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateRevokedException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Translates the JDK trust manager's refusals into the OpenSSL verify codes BoringSSL turns into alerts.
 *
 * <p>netty-tcnative asks a Java trust manager to verify the client's chain and hands BoringSSL an {@code X509_V_*}
 * code, which BoringSSL maps to the alert it sends ({@code SSL_alert_from_verify_result}). Netty derives the code
 * from the exception's type: an expired certificate and a {@code CertPathValidatorException} with a reason of
 * expired, not yet valid or revoked get theirs, but the JDK's "no certification path to a trusted CA" (a
 * {@link CertPathBuilderException} inside its {@code ValidatorException}) becomes {@code X509_V_ERR_UNSPECIFIED},
 * sent as {@code internal_error}: an operator then looks for a bug in the server instead of at the client's CA.
 * Here every refusal carries its code in an {@link OpenSslCertificateException}: no path to a trusted CA is
 * {@code unknown_ca}, revoked is {@code certificate_revoked}, expired or not yet valid is {@code certificate_expired}
 * (RFC 8446: "expired or is not currently valid"), and anything else (wrong key usage, a signature that does not
 * verify) {@code bad_certificate}.
 *
 * <p>Only for the OpenSSL provider: the exception's class needs netty-tcnative's native library. The JDK's own engine
 * chooses its alerts itself ({@code certificate_unknown} for most refusals in Java 17).
 */
final class AlertingTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;

    AlertingTrustManager(X509ExtendedTrustManager delegate) {
        this.delegate = delegate;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        try {
            delegate.checkClientTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw withCode(e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        try {
            delegate.checkClientTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw withCode(e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            delegate.checkClientTrusted(chain, authType);
        } catch (CertificateException e) {
            throw withCode(e);
        }
    }

    /** {@code refusal} with the verify code of its reason; its message and cause kept for the server's log. */
    static CertificateException withCode(CertificateException refusal) {
        if (refusal instanceof OpenSslCertificateException) {
            return refusal;
        }
        return new OpenSslCertificateException(refusal.getMessage(), refusal, verifyCode(refusal));
    }

    /** The {@code X509_V_ERR_*} code for a refusal, from the first cause in its chain that tells. */
    static int verifyCode(Throwable refusal) {
        for (Throwable t = refusal; t != null; t = t.getCause()) {
            if (t instanceof CertificateRevokedException) {
                return CertificateVerifier.X509_V_ERR_CERT_REVOKED;
            }
            if (t instanceof CertificateExpiredException) {
                return CertificateVerifier.X509_V_ERR_CERT_HAS_EXPIRED;
            }
            if (t instanceof CertificateNotYetValidException) {
                return CertificateVerifier.X509_V_ERR_CERT_NOT_YET_VALID;
            }
            if (t instanceof CertPathBuilderException) {
                return CertificateVerifier.X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY;
            }
            if (t instanceof CertPathValidatorException validation) {
                if (validation.getReason() == BasicReason.REVOKED) {
                    return CertificateVerifier.X509_V_ERR_CERT_REVOKED;
                }
                if (validation.getReason() == BasicReason.EXPIRED) {
                    return CertificateVerifier.X509_V_ERR_CERT_HAS_EXPIRED;
                }
                if (validation.getReason() == BasicReason.NOT_YET_VALID) {
                    return CertificateVerifier.X509_V_ERR_CERT_NOT_YET_VALID;
                }
            }
        }
        return CertificateVerifier.X509_V_ERR_CERT_REJECTED;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }
}
