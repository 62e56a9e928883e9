// VaryIndex -- what a URL whose answers vary stores under its own key: the names its variants are chosen by.
package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.US_ASCII;

import io.elastikey.edge.content.CachedResponse.Field;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 9111 4.1 keys a response with {@code Vary} by the URL and the request's values of the listed headers. The
 * store has one key per value, so such a URL keeps two kinds of entry:
 * <ul>
 *   <li>under the URL's key, this index: the header names (from the latest stored response) and until when it is
 *       worth keeping;
 *   <li>under {@link #variantKey} (the URL's key, {@code 0x00}, then 16 bytes of a SHA-256 of the names and the
 *       request's values), one {@link CachedResponse} per variant.
 * </ul>
 * A lookup reads the index, computes the variant key from the request, and reads the variant: two reads instead
 * of one, for varying URLs only. A variant key starts with its URL's key, which lets a purge find the variants.
 *
 * <h2>Value layout</h2>
 * <pre>
 *   u8   kind               2 (a {@link CachedResponse} starts with its version, 1)
 *   i64  retainUntil        epoch millis; past it the index is deleted
 *   u8   N                  names, 1..{@link CachedResponse#MAX_VARY}; each u8 length + lower-case ASCII
 * </pre>
 */
final class VaryIndex {
    static final byte KIND = 2;
    static final byte SEPARATOR = 0;
    private static final int HASH_BYTES = 16;

    private final List<String> names;
    private final long retainUntil;

    VaryIndex(List<String> names, long retainUntil) {
        this.names = List.copyOf(names);
        this.retainUntil = retainUntil;
    }

    List<String> names() {
        return names;
    }

    long retainUntil() {
        return retainUntil;
    }

    static boolean isIndex(byte[] value) {
        return value.length > 0 && value[0] == KIND;
    }

    byte[] encode() {
        int size = 1 + 8 + 1;
        for (String n : names) {
            size += 1 + n.length();
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(KIND).putLong(retainUntil).put((byte) names.size());
        for (String n : names) {
            out.put((byte) n.length()).put(n.getBytes(US_ASCII));
        }
        return out.array();
    }

    /** The index, or null when {@code value} is not a valid one. */
    static VaryIndex decode(byte[] value) {
        try {
            ByteBuffer in = ByteBuffer.wrap(value);
            if (in.get() != KIND) {
                return null;
            }
            long retainUntil = in.getLong();
            int n = in.get() & 0xFF;
            if (n < 1 || n > CachedResponse.MAX_VARY) {
                return null;
            }
            List<String> names = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] raw = new byte[in.get() & 0xFF];
                in.get(raw);
                String name = new String(raw, US_ASCII);
                if (!CachedResponse.isFieldName(name)) {
                    return null;
                }
                names.add(name);
            }
            return in.hasRemaining() ? null : new VaryIndex(names, retainUntil);
        } catch (BufferUnderflowException truncated) {
            return null;
        }
    }

    /** The names of {@code vary} fields, in order. */
    static List<String> namesOf(List<Field> vary) {
        return vary.stream().map(Field::name).toList();
    }

    /**
     * The key of the variant of {@code urlKey} that a request with {@code values} (one per name, null when absent)
     * selects; hashed by {@link CacheKeys} rules when longer than {@code maxKeyBytes}.
     */
    static byte[] variantKey(byte[] urlKey, List<Field> values, int maxKeyBytes) {
        MessageDigest sha = sha256();
        for (Field f : values) {
            sha.update(f.name().getBytes(US_ASCII));
            sha.update(f.value() == null ? new byte[] {0} : ("=" + f.value()).getBytes(ISO_8859_1));
            sha.update((byte) '\n');
        }
        byte[] key = new byte[urlKey.length + 1 + HASH_BYTES];
        System.arraycopy(urlKey, 0, key, 0, urlKey.length);
        key[urlKey.length] = SEPARATOR;
        System.arraycopy(sha.digest(), 0, key, urlKey.length + 1, HASH_BYTES);
        return key.length > maxKeyBytes ? CacheKeys.hashed(key) : key;
    }

    /** The request's values of this index's names, as a variant's vary fields. */
    List<Field> valuesOf(HttpHeaders request) {
        List<Field> out = new ArrayList<>(names.size());
        for (String n : names) {
            out.add(new Field(n, StorePolicy.requestValue(request, n)));
        }
        return out;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
