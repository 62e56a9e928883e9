// KeyAccess -- which keys a caller may use, asked of a key's public fields.
package io.elastikey.keyserver.keys;

import java.util.List;
import java.util.Set;

/**
 * The question authorization answers about one key, put in terms of the fields a stored record keeps in the clear,
 * so that {@link KeyRepository#find(String, KeyAccess)} can ask it before unsealing: a key the caller may not use
 * is never unsealed, parsed or cached on its behalf. Implementations are cheap and thread-safe.
 */
@FunctionalInterface
public interface KeyAccess {
    /**
     * @param keyId the canonical key ID (lower-case hex SHA-256 of the SubjectPublicKeyInfo)
     * @param tags  the key's tags
     * @param names the DNS names of its certificate, lower case
     */
    boolean permits(String keyId, Set<String> tags, List<String> names);

    /** {@link #permits(String, Set, List)} for a key already unsealed, whose fields the seal authenticated. */
    default boolean permits(LoadedKey key) {
        return permits(key.keyId(), key.tags(), key.names());
    }
}
