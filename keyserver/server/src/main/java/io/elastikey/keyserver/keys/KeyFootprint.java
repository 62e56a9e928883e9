// KeyFootprint -- what one parsed key costs in memory, heap and native together, so the cache can be sized in bytes.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.util.Collection;

/**
 * The estimated memory of one entry of the parsed-key cache: the provider's key object (its Java objects and the
 * native key behind them), the {@link LoadedKey} with its strings, the identifier it is cached under, and the cache's
 * own node. Estimates, not measurements per entry: they were measured once per key type (RSS and heap growth while
 * holding 20,000 to 100,000 keys parsed by ACCP 2.5.0, each used once; docs/keys.md) and rounded up. Keys of the
 * JDK providers are smaller, so the cache errs on the side of holding fewer. Packed keys are not weighed here: the
 * off-heap table that holds them counts its own bytes ({@link PackedKeyTier}).
 */
final class KeyFootprint {
    /** Caffeine's node, the map's node and its table slot, and the {@link LoadedKey} object. */
    static final int ENTRY_OVERHEAD = 144;

    private KeyFootprint() {
    }

    /** Bytes held by caching {@code key} under {@code identifier}. */
    static int of(String identifier, LoadedKey key) {
        int bytes = ENTRY_OVERHEAD + providerKey(key.type()) + string(identifier) + strings(key.names())
                + strings(key.tags());
        return identifier.equals(key.keyId()) ? bytes : bytes + string(key.keyId());
    }

    /**
     * The provider's key object with its native part, after its first use (RSA keys build their Montgomery
     * contexts then): measured 700 bytes for EC P-256 and P-384 and 5,800 for RSA-2048, which scales with the size.
     */
    static int providerKey(KeyType type) {
        return switch (type) {
            case EC_P256 -> 720;
            case EC_P384 -> 760;
            case ED25519 -> 480;
            case RSA_2048 -> 6_000;
            case RSA_3072 -> 8_800;
            case RSA_4096 -> 11_600;
        };
    }

    /** A Latin-1 string: object header and fields, array header, one byte per character. */
    private static int string(String s) {
        return 24 + 16 + s.length();
    }

    private static int strings(Collection<String> strings) {
        int bytes = strings.isEmpty() ? 0 : 24 + 4 * strings.size();
        for (String s : strings) {
            bytes += string(s);
        }
        return bytes;
    }
}
