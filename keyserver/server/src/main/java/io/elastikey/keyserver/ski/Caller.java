package io.elastikey.keyserver.ski;

import io.elastikey.keyserver.keys.LoadedKey;

/**
 * Who is asking, settled once per connection when its TLS handshake completes: a short name
 * for the audit log, the peer address, and what the access policy lets it use.
 *
 * @param name        a short printable identity (subject CN and fingerprint prefix)
 * @param remote      the peer's address, as text
 * @param permissions the keys this caller may use under the policy in force
 */
public record Caller(String name, String remote, Permissions permissions) {

    /** The access decision for one caller; implementations are cheap and thread-safe. */
    @FunctionalInterface
    public interface Permissions {
        boolean permits(LoadedKey key);
    }
}
