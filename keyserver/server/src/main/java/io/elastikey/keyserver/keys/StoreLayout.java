// StoreLayout -- the store keys the repository writes: one-byte prefixes keep records, aliases and the rest apart.
package io.elastikey.keyserver.keys;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Every store key the repository uses starts with a one-byte prefix that says what the entry is, so no two kinds
 * of entry can ever collide, whatever their digests:
 * <pre>
 *   'K' + key ID (32 bytes)                   a key record ({@link KeyRecord})
 *   'A' + digest (20 or 32 bytes)             an alias: value = the key ID (32 bytes)
 *   'C' + key ID (32) + index (4, big-endian) another certificate of the key: value = its SHA-1 (20) + chain PEM
 *   'M' + ASCII name                          repository metadata: "kek-check", "count"
 * </pre>
 * Alias keys carry no kind: a 20-byte alias is a certificate SHA-1 or a Keyless SKI, a 32-byte one a modulus
 * digest, and a lookup by any of them is one {@code get}. Two digests of different kinds being equal would take a
 * SHA-1 or SHA-256 collision; adding a key whose alias already names another key is refused.
 */
final class StoreLayout {
    static final byte RECORD = 'K';
    static final byte ALIAS = 'A';
    static final byte CERTIFICATE = 'C';
    static final byte METADATA = 'M';

    /** A sealed known text: proves at open that the KEK is the one the store's keys were sealed with. */
    static final byte[] KEK_CHECK = metadata("kek-check");
    /** The number of key records, 8 bytes big-endian. */
    static final byte[] COUNT = metadata("count");

    private StoreLayout() {
    }

    static byte[] recordKey(byte[] keyId) {
        return prefixed(RECORD, keyId);
    }

    static byte[] aliasKey(byte[] digest) {
        return prefixed(ALIAS, digest);
    }

    static byte[] certificateKey(byte[] keyId, int index) {
        return ByteBuffer.allocate(1 + keyId.length + 4).put(CERTIFICATE).put(keyId).putInt(index).array();
    }

    static boolean isRecordKey(byte[] storeKey) {
        return storeKey.length == 33 && storeKey[0] == RECORD;
    }

    /** The key ID inside a record key, or the digest inside an alias key: what follows the prefix. */
    static byte[] keyIdOf(byte[] storeKey) {
        byte[] keyId = new byte[storeKey.length - 1];
        System.arraycopy(storeKey, 1, keyId, 0, keyId.length);
        return keyId;
    }

    private static byte[] metadata(String name) {
        return prefixed(METADATA, name.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] prefixed(byte prefix, byte[] body) {
        byte[] key = new byte[1 + body.length];
        key[0] = prefix;
        System.arraycopy(body, 0, key, 1, body.length);
        return key;
    }
}
