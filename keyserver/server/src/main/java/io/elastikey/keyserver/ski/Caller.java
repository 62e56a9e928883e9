package io.elastikey.keyserver.ski;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.keys.KeyAccess;

import java.net.SocketAddress;

/**
 * Who is asking, settled once per connection when its TLS handshake completes: the identity
 * in the verified client certificate, the peer address, and what the access policy in force
 * lets it use.
 *
 * @param identity    names from the client certificate
 * @param remote      the peer's address
 * @param permissions the keys this caller may use
 */
public record Caller(ClientIdentity identity, SocketAddress remote, Permissions permissions) {

    /** The access decision for one caller; implementations are cheap and thread-safe. */
    @FunctionalInterface
    public interface Permissions extends KeyAccess {
    }

    /** A short printable form for logs. */
    public String name() {
        return identity.shortName();
    }
}
