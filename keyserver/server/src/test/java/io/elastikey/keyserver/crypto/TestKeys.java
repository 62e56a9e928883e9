package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Key pairs generated once per test JVM (RSA-4096 takes a second), and the same keys loaded as
 * each provider's own key objects, the way the repository will load them.
 */
final class TestKeys {
    private static final Map<String, KeyPair> PAIRS = new ConcurrentHashMap<>();
    private static final Map<String, LoadedKey> LOADED = new ConcurrentHashMap<>();
    private static final Map<String, PublicKey> PUBLIC_KEYS = new ConcurrentHashMap<>();

    private TestKeys() {
    }

    /** The first key pair of {@code type}. */
    static KeyPair pair(KeyType type) {
        return pair(type, 0);
    }

    /** The {@code index}-th key pair of {@code type}, for tests that need two different keys. */
    static KeyPair pair(KeyType type, int index) {
        // The first pair of a type is the one every test module of the JVM shares.
        return index == 0 ? io.elastikey.protocol.pki.TestKeys.of(type)
                : PAIRS.computeIfAbsent(type + "/" + index, k -> type.generate());
    }

    static LoadedKey loaded(CryptoProvider provider, KeyType type) {
        return loaded(provider, type, 0);
    }

    static LoadedKey loaded(CryptoProvider provider, KeyType type, int index) {
        return LOADED.computeIfAbsent(provider.description() + "/" + type + "/" + index, k -> {
            KeyPair pair = pair(type, index);
            try {
                PrivateKey key = provider.keyParser().parse(type, pair.getPrivate().getEncoded());
                PUBLIC_KEYS.put(keyId(pair), pair.getPublic());
                return new LoadedKey(keyId(pair), type, key, Set.of(), List.of());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot load a " + type + " key with " + provider, e);
            }
        });
    }

    /** The public half of a key {@link #loaded} made (a {@link LoadedKey} carries only the private key). */
    static PublicKey publicKey(LoadedKey key) {
        return PUBLIC_KEYS.get(key.keyId());
    }

    /** Lower-case hex SHA-256 of the SubjectPublicKeyInfo, as the repository names keys. */
    static String keyId(KeyPair pair) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256", "SUN")
                    .digest(pair.getPublic().getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
