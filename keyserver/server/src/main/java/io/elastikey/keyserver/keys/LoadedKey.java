package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.security.PrivateKey;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A key ready for use: unsealed, parsed once into the crypto provider's own key object, with
 * what authorization needs to know about it. Instances live in the parsed-key cache and are
 * shared by worker threads; all fields are immutable.
 *
 * <p>Deliberately small: a key server may hold a million of these. The certificate stays in the
 * store (authorization needs only its names, which the record keeps in the clear), and an RSA
 * key's modulus comes from the private key object itself.
 *
 * @param keyId       the canonical key ID: lower-case hex SHA-256 of the SubjectPublicKeyInfo
 * @param type        the key's algorithm and size
 * @param privateKey  the private key, as an object of the provider that will use it
 * @param tags        operator-given tags (policy can grant by tag)
 * @param names       DNS names of the certificate (SANs, else the subject CN), lower case
 */
public record LoadedKey(String keyId, KeyType type, PrivateKey privateKey, Set<String> tags, List<String> names) {

    public LoadedKey {
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(privateKey, "privateKey");
        tags = Set.copyOf(tags);
        names = List.copyOf(names);
    }

    @Override
    public String toString() {
        // Never the private key: records print themselves in logs and exceptions.
        return "LoadedKey[" + keyId + ", " + type.cliName() + ", tags=" + tags + ", names=" + names + "]";
    }
}
