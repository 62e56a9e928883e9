// FailureKinds -- a short, stable name for why a connection failed, for the report's "errors by kind".
package io.elastikey.perf.handshake;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLException;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;

/**
 * Names a failure by what went wrong, never by its message text, so that kinds stay few and a report shows at a
 * glance whether the server refused, the certificate was not trusted, or the TLS peers disagreed:
 *
 * <ul>
 *   <li>{@code CONNECT_FAILED}, {@code CONNECT_TIMEOUT}, {@code CONNECTION_RESET}, {@code CLOSED_DURING_HANDSHAKE}</li>
 *   <li>{@code HANDSHAKE_TIMEOUT}</li>
 *   <li>{@code CERTIFICATE_NOT_TRUSTED} (the chain does not end at the CA given), {@code CERTIFICATE_NAME_MISMATCH}
 *       (it does, but not for the server name)</li>
 *   <li>{@code TLS_<REASON>}: any other TLS failure, by BoringSSL's reason code ({@code TLS_NO_SHARED_CIPHER},
 *       {@code TLS_SSLV3_ALERT_HANDSHAKE_FAILURE}) or the JDK's alert name ({@code TLS_ALERT_HANDSHAKE_FAILURE})</li>
 *   <li>otherwise the exception's simple class name</li>
 * </ul>
 *
 * Later stages add their own: {@code HTTP_<status>}, {@code RESPONSE_TIMEOUT}, {@code CLOSED_BEFORE_RESPONSE}, and
 * {@code BACKLOG_FULL} for an open-loop connection not started because too many were open.
 */
final class FailureKinds {
    /** The reason at the end of a BoringSSL error string: {@code error:10000410:SSL routines:...:REASON}. */
    private static final Pattern BORING_REASON = Pattern.compile(":([A-Z0-9_]+)\\s*$");
    private static final Pattern JDK_ALERT = Pattern.compile("alert: ([a-z_]+)");

    private FailureKinds() {
    }

    static String of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectTimeoutException) {
                return "CONNECT_TIMEOUT";
            }
            if (t instanceof ConnectException) {
                return "CONNECT_FAILED";
            }
            if (t instanceof SslHandshakeTimeoutException) {
                return "HANDSHAKE_TIMEOUT";
            }
            if (t instanceof CertificateException && isNameMismatch(t.getMessage())) {
                return "CERTIFICATE_NAME_MISMATCH";
            }
            if (t instanceof CertificateException || t instanceof CertPathValidatorException
                    || t instanceof CertPathBuilderException) {
                return "CERTIFICATE_NOT_TRUSTED";
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return tlsReason(t.getMessage());
            }
            if (t instanceof ClosedChannelException) {
                return "CLOSED_DURING_HANDSHAKE";
            }
            if (t instanceof IOException && t.getMessage() != null && t.getMessage().contains("reset")) {
                return "CONNECTION_RESET";
            }
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName();
    }

    private static boolean isNameMismatch(String message) {
        return message != null
                && (message.startsWith("No subject alternative") || message.startsWith("No name matching"));
    }

    private static String tlsReason(String message) {
        if (message != null) {
            Matcher boring = BORING_REASON.matcher(message);
            if (boring.find()) {
                return "TLS_" + boring.group(1);
            }
            Matcher alert = JDK_ALERT.matcher(message);
            if (alert.find()) {
                return "TLS_ALERT_" + alert.group(1).toUpperCase(Locale.ROOT);
            }
        }
        return "TLS_ERROR";
    }
}
