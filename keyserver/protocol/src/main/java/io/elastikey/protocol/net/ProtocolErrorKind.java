// ProtocolErrorKind -- what a client did wrong on a connection, told apart from a failure of the server's own.
package io.elastikey.protocol.net;

import io.elastikey.protocol.http.RequestReadTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Exception;

import java.io.IOException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * The kinds of client misbehaviour a server counts ({@code kind} label of its protocol-error metric) and logs in one
 * line without a stack trace. A stack trace is for the server's own failures, which {@link #of} answers
 * {@code null} for.
 */
public enum ProtocolErrorKind {
    /** Bytes that are not TLS records, or records that do not decrypt, after the handshake. */
    TLS,
    /** A frame, header block or stream state that breaks HTTP/2. */
    HTTP2,
    /** A request HTTP/1.1 cannot parse, or one over a size limit. */
    HTTP1,
    /** The client reset or broke the connection (ECONNRESET, EPIPE). */
    RESET,
    /** A request that had not fully arrived within the request-read timeout. */
    TIMEOUT;

    private final String label = name().toLowerCase(Locale.ROOT);

    /** The metric label: {@code tls}, {@code http2}, {@code http1}, {@code reset}, {@code timeout}. */
    public String label() {
        return label;
    }

    /**
     * The kind of a failure a connection's pipeline reported, looking through the wrappers codecs add; {@code null}
     * when it is not the client's doing (a bug of ours, or a resource running out).
     */
    public static ProtocolErrorKind of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Http2Exception) {
                return HTTP2;
            }
            if (t instanceof SSLException) {
                return TLS;
            }
            if (t instanceof RequestReadTimeoutException) {
                return TIMEOUT;
            }
            if (t instanceof IOException) {
                return RESET;
            }
        }
        // Netty's HTTP/1.1 decoder reports through the message's decoder result, except for what it throws.
        return failure instanceof DecoderException ? HTTP1 : null;
    }

    /**
     * A short description of {@code failure} for one log line: the HTTP/2 error code, or the exception's type and the
     * start of its message, printable ASCII only, cut before any hex dump Netty appends. Nothing a client sent is
     * quoted at length.
     */
    public static String describe(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof DecoderException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Http2Exception h2) {
            return h2.error().name() + " (" + shortMessage(h2.getMessage()) + ")";
        }
        return cause.getClass().getSimpleName() + ": " + shortMessage(cause.getMessage());
    }

    private static String shortMessage(String message) {
        if (message == null) {
            return "-";
        }
        int dump = message.toLowerCase(Locale.ROOT).indexOf("hex dump");
        String text = dump >= 0 ? message.substring(0, dump) : message;
        StringBuilder out = new StringBuilder(Math.min(text.length(), 80));
        for (int i = 0; i < text.length() && out.length() < 80; i++) {
            char c = text.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        if (text.length() > 80) {
            out.append("...");
        }
        return out.toString().strip();
    }
}
