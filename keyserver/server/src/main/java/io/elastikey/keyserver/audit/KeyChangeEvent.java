// KeyChangeEvent -- one key added, updated or removed in a running key server, as the audit log records it.
package io.elastikey.keyserver.audit;

import io.elastikey.keyserver.keys.KeyChange;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * The facts about one change to the served keys: who made it, through what, to which key. Like {@link AuditEvent},
 * it has no component that could carry key material or a command's arguments (an import's password is one).
 *
 * @param time     when the store had the change
 * @param operator the operating-system user who ran the command, as the control socket's peer credentials say
 * @param socket   the control socket the command came over
 * @param change   what happened to the key
 * @param keyId    the key ID; {@value AuditEvent#INVALID_KEY_ID} if it is not hex, which a stored key's always is
 */
public record KeyChangeEvent(Instant time, String operator, Path socket, KeyChange change, String keyId) {
    /** The {@code protocol} field of a key change's audit line. */
    static final String PROTOCOL = "keys";

    public KeyChangeEvent {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(change, "change");
        keyId = AuditEvent.normalKeyId(keyId);
    }
}
