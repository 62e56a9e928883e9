// TestKeys -- one key pair per key type, generated once per test JVM so RSA-4096 costs its second only once.
package io.elastikey.protocol.pki;

import java.security.KeyPair;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Shared key pairs for tests that need a key of a type but not a fresh one. */
public final class TestKeys {
    private static final Map<KeyType, KeyPair> KEYS = new ConcurrentHashMap<>();

    private TestKeys() {
    }

    public static KeyPair of(KeyType type) {
        return KEYS.computeIfAbsent(type, KeyType::generate);
    }
}
