// AuditEvent -- one request as the audit log records it: who, from where, which key, what, how it ended, how long.
package io.elastikey.keyserver.audit;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

import java.net.SocketAddress;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * The facts about one request that the audit log keeps, and nothing else. The audit log must never hold key
 * material, request inputs or outputs; rather than trusting every caller to leave them out, this type has no
 * component that could carry them. Every component is typed (a client identity, a socket address, an enum, a
 * number) except the key ID, which is kept only when it is what key IDs are, hex digits, and replaced by
 * {@value #INVALID_KEY_ID} otherwise, so not even a client's garbage reaches the log.
 *
 * @param time     when the request was answered
 * @param client   who asked, or {@code null} if unknown; logged as {@link ClientIdentity#shortName()}
 * @param remote   the peer's address, or {@code null}
 * @param protocol the protocol the request came over
 * @param keyId    the key ID (canonical, or as the client sent it when it did not resolve), or {@code null}
 *                 when the request did not get as far as naming a key
 * @param method   the operation asked for, or {@code null} when the request was too malformed to tell
 * @param error    the error answered, or {@code null} when the request succeeded
 * @param micros   time from request to answer, in microseconds
 */
public record AuditEvent(Instant time, ClientIdentity client, SocketAddress remote, ClientProtocol protocol,
                         String keyId, SkiMethod method, SkiError error, long micros) {
    /** What an audit line shows instead of a key ID that is not 1 to 128 hex digits. */
    public static final String INVALID_KEY_ID = "invalid";

    private static final int MAX_KEY_ID_CHARS = 128;

    public AuditEvent {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(protocol, "protocol");
        keyId = normalKeyId(keyId);
    }

    /** {@code keyId} in lower case, {@value #INVALID_KEY_ID} when it is not hex, {@code null} when it is. */
    static String normalKeyId(String keyId) {
        if (keyId == null) {
            return null;
        }
        return isHex(keyId) ? keyId.toLowerCase(Locale.ROOT) : INVALID_KEY_ID;
    }

    /** An event stamped with the current time. */
    public static AuditEvent now(ClientIdentity client, SocketAddress remote, ClientProtocol protocol, String keyId,
            SkiMethod method, SkiError error, long micros) {
        return new AuditEvent(Instant.now(), client, remote, protocol, keyId, method, error, micros);
    }

    /** 1 to 128 hex digits; checked by hand, as this runs once per request (a regex matcher is garbage). */
    private static boolean isHex(String text) {
        if (text.isEmpty() || text.length() > MAX_KEY_ID_CHARS) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
                return false;
            }
        }
        return true;
    }

    /** {@code ok}, or the error's text exactly as the client received it (e.g. {@code request denied}). */
    public String result() {
        return error == null ? "ok" : error.text();
    }
}
