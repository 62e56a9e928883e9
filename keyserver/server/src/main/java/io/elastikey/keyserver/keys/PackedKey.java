// PackedKey -- a LoadedKey with a CompactKey as one byte array: how the parsed-key cache holds a million P-256 keys.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Packs a {@link LoadedKey} whose private key is a {@link CompactKey} into one array, and unpacks it again on every
 * cache hit. Why: as objects, a cached P-256 key is a dozen of them (the key ID string, the key, its array, the names
 * list and string, the record) and some 450 bytes; a million of them filled the key server's heap and kept G1
 * marking it back to back (docs/benchmarks.md). Packed, it is one array of about 120 bytes; a hit allocates the
 * objects again, short-lived garbage the young collections take for free.
 *
 * <p>Layout: type ordinal (1 byte), key ID (32), key length (1) and key bytes, then tags and names, each a count
 * (1 byte) of length-prefixed (2 bytes) UTF-8 strings. The array holds private key material: it lives only in the
 * cache, and {@link KeyCache} wipes nothing it did not make (an evicted array is left to the collector, like any
 * cached key object).
 */
final class PackedKey {
    private static final int MAX_ITEMS = 255;
    private static final int MAX_STRING = 0xffff;

    private PackedKey() {
    }

    /** {@code key} packed, or {@code null} when it does not pack (not a {@link CompactKey}, or too many names). */
    static byte[] pack(LoadedKey key) {
        if (!(key.privateKey() instanceof CompactKey compact) || key.tags().size() > MAX_ITEMS
                || key.names().size() > MAX_ITEMS) {
            return null;
        }
        byte[] keyBytes = compact.toBytes();
        try {
            if (keyBytes.length > MAX_ITEMS) {
                return null;
            }
            List<byte[]> tags = utf8(key.tags());
            List<byte[]> names = utf8(key.names());
            if (tags == null || names == null) {
                return null;
            }
            ByteBuffer out = ByteBuffer.allocate(1 + KeyIds.SHA256_LENGTH + 1 + keyBytes.length + length(tags)
                    + length(names));
            out.put((byte) key.type().ordinal()).put(KeyIds.parse(key.keyId()));
            out.put((byte) keyBytes.length).put(keyBytes);
            putStrings(out, tags);
            putStrings(out, names);
            return out.array();
        } finally {
            Arrays.fill(keyBytes, (byte) 0);
        }
    }

    /** The key {@link #pack} packed, its private key rebuilt by {@code parser}. */
    static LoadedKey unpack(byte[] packed, PrivateKeyParser parser) throws GeneralSecurityException {
        ByteBuffer in = ByteBuffer.wrap(packed);
        KeyType type = KeyType.values()[in.get()];
        String keyId = keyIdOf(packed);
        in.position(1 + KeyIds.SHA256_LENGTH);
        byte[] keyBytes = new byte[in.get() & 0xff];
        in.get(keyBytes);
        // Immutable collections, which LoadedKey's copyOf keeps as they are: a hit allocates no second copy.
        Set<String> tags = Set.of(getStrings(in));
        List<String> names = List.of(getStrings(in));
        return new LoadedKey(keyId, type, parser.fromCompact(type, keyBytes), tags, names);
    }

    /** The key ID of a packed key, hex. */
    static String keyIdOf(byte[] packed) {
        return KeyIds.hex(Arrays.copyOfRange(packed, 1, 1 + KeyIds.SHA256_LENGTH));
    }

    private static List<byte[]> utf8(Iterable<String> strings) {
        List<byte[]> out = new ArrayList<>();
        for (String s : strings) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > MAX_STRING) {
                return null;
            }
            out.add(bytes);
        }
        return out;
    }

    private static int length(List<byte[]> strings) {
        int length = 1;
        for (byte[] s : strings) {
            length += 2 + s.length;
        }
        return length;
    }

    private static void putStrings(ByteBuffer out, List<byte[]> strings) {
        out.put((byte) strings.size());
        for (byte[] s : strings) {
            out.putShort((short) s.length).put(s);
        }
    }

    private static String[] getStrings(ByteBuffer in) {
        String[] strings = new String[in.get() & 0xff];
        for (int i = 0; i < strings.length; i++) {
            int length = in.getShort() & 0xffff;
            strings[i] = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
            in.position(in.position() + length);
        }
        return strings;
    }
}
