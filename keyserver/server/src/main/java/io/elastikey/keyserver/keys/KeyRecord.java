// KeyRecord -- one stored key: public fields in the clear, the private key sealed; the binary layout.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The value stored under {@code 'K' + key ID} ({@link StoreLayout}). Layout, all integers big-endian:
 * <pre>
 *   u8   format version (= 1)
 *   u8   key type: 1 rsa2048, 2 rsa3072, 3 rsa4096, 4 ec256, 5 ec384, 6 ed25519
 *   i64  created, milliseconds since the epoch (kept when the key is added again)
 *   u16  tag count T,   T x (u16 length, UTF-8)
 *   u16  name count N,  N x (u16 length, UTF-8)      DNS names of the current certificate, lower case
 *   u8   alias count A, A x (u8 kind, u8 length, digest)   see {@link AliasKind}; never the key ID itself
 *   i32  other certificates E: entries 'C' + key ID + 0..E-1 hold earlier certificates of the same key
 *   i32  chain length L, L bytes: PEM certificates, the current one first, then its issuers
 *   i32  sealed length S, S bytes: the PKCS#8 PEM of the private key sealed by {@link Sealer}
 * </pre>
 * Everything before the sealed length is the <em>header</em>. The seal's associated data is the key ID followed
 * by the header, so AES-GCM authenticates the public fields too: a record whose tags, names or certificate were
 * edited in the store (which authorization trusts) fails to open like one whose sealed key was. The public fields
 * can be read without the KEK, which is how keys are listed without unsealing them.
 *
 * @param aliases the aliases of this key and of its current certificate
 */
record KeyRecord(KeyType type, Instant created, Set<String> tags, List<String> names, List<Alias> aliases,
                 int otherCertificates, byte[] chainPem, byte[] sealedKey) {
    static final int FORMAT_VERSION = 1;
    private static final List<KeyType> TYPE_CODES = List.of(KeyType.RSA_2048, KeyType.RSA_3072, KeyType.RSA_4096,
            KeyType.EC_P256, KeyType.EC_P384, KeyType.ED25519);

    /** An identifier, other than the key ID, that resolves to this key. */
    record Alias(AliasKind kind, byte[] digest) {
    }

    KeyRecord {
        tags = new LinkedHashSet<>(tags);
        names = List.copyOf(names);
        aliases = List.copyOf(aliases);
    }

    /** The same record with {@code sealed} as its sealed key. */
    KeyRecord withSealedKey(byte[] sealed) {
        return new KeyRecord(type, created, tags, names, aliases, otherCertificates, chainPem, sealed);
    }

    /**
     * Whether {@code access} permits the key stored as {@code value}, asked of its clear tags and names alone, without
     * decoding the rest. The seal has not authenticated them yet, so only a refusal is final: a permitted key is asked
     * again once unsealed ({@link KeyLookup#of}). A record too damaged to read is let through, for the unseal to
     * report.
     */
    static boolean clearFieldsPermit(String keyId, byte[] value, KeyAccess access) {
        ByteBuffer in = ByteBuffer.wrap(value);
        try {
            in.position(2 + Long.BYTES); // version, type, created
            Set<String> tags = new LinkedHashSet<>(readStrings(in));
            return access.permits(keyId, tags, readStrings(in));
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            return true;
        }
    }

    /** The digest of the first alias of {@code kind}, or {@code null}. */
    byte[] alias(AliasKind kind) {
        return aliases.stream().filter(a -> a.kind() == kind).map(Alias::digest).findFirst().orElse(null);
    }

    /** The associated data the private key is sealed with: the key ID, then the header. */
    byte[] associatedData(byte[] keyId) {
        byte[] header = header();
        return ByteBuffer.allocate(keyId.length + header.length).put(keyId).put(header).array();
    }

    /** The whole record: header, then the sealed key. */
    byte[] encode() {
        byte[] header = header();
        return ByteBuffer.allocate(header.length + 4 + sealedKey.length)
                .put(header).putInt(sealedKey.length).put(sealedKey).array();
    }

    /** The fields before the sealed key, in the layout above. */
    byte[] header() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + chainPem.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeByte(TYPE_CODES.indexOf(type) + 1);
            out.writeLong(created.toEpochMilli());
            writeStrings(out, tags);
            writeStrings(out, names);
            checkRange("aliases", aliases.size(), 0xff);
            out.writeByte(aliases.size());
            for (Alias alias : aliases) {
                out.writeByte(alias.kind().code());
                out.writeByte(alias.digest().length);
                out.write(alias.digest());
            }
            out.writeInt(otherCertificates);
            out.writeInt(chainPem.length);
            out.write(chainPem);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // never: the stream is in memory
        }
        return bytes.toByteArray();
    }

    /**
     * Reads a stored record.
     *
     * @throws IllegalArgumentException when {@code value} is not a record of a known version; the message says
     *     which field is wrong and quotes no bytes
     */
    static KeyRecord decode(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        try {
            int version = in.get() & 0xff;
            if (version != FORMAT_VERSION) {
                throw new IllegalArgumentException("unknown key record version " + version);
            }
            int typeCode = in.get() & 0xff;
            if (typeCode < 1 || typeCode > TYPE_CODES.size()) {
                throw new IllegalArgumentException("unknown key type code " + typeCode);
            }
            Instant created = Instant.ofEpochMilli(in.getLong());
            Set<String> tags = new LinkedHashSet<>(readStrings(in));
            List<String> names = readStrings(in);
            int aliasCount = in.get() & 0xff;
            List<Alias> aliases = new ArrayList<>(aliasCount);
            for (int i = 0; i < aliasCount; i++) {
                AliasKind kind = AliasKind.ofCode(in.get() & 0xff);
                aliases.add(new Alias(kind, bytes(in, in.get() & 0xff)));
            }
            int otherCertificates = in.getInt();
            byte[] chain = bytes(in, in.getInt());
            byte[] sealed = bytes(in, in.getInt());
            if (in.hasRemaining() || otherCertificates < 0) {
                throw new IllegalArgumentException("key record has inconsistent lengths");
            }
            return new KeyRecord(TYPE_CODES.get(typeCode - 1), created, tags, names, aliases, otherCertificates,
                    chain, sealed);
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new IllegalArgumentException("key record is truncated or has inconsistent lengths");
        }
    }

    @Override
    public String toString() {
        return "KeyRecord[" + type.cliName() + ", created " + created + ", tags=" + tags + ", names=" + names + "]";
    }

    private static void writeStrings(DataOutputStream out, Iterable<String> strings) throws IOException {
        List<byte[]> encoded = new ArrayList<>();
        strings.forEach(s -> encoded.add(s.getBytes(StandardCharsets.UTF_8)));
        checkRange("strings in a list", encoded.size(), 0xffff);
        out.writeShort(encoded.size());
        for (byte[] s : encoded) {
            checkRange("bytes in a tag or name", s.length, 0xffff);
            out.writeShort(s.length);
            out.write(s);
        }
    }

    private static List<String> readStrings(ByteBuffer in) {
        int count = in.getShort() & 0xffff;
        List<String> strings = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            strings.add(new String(bytes(in, in.getShort() & 0xffff), StandardCharsets.UTF_8));
        }
        return strings;
    }

    private static byte[] bytes(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] b = new byte[length];
        in.get(b);
        return b;
    }

    private static void checkRange(String what, int count, int max) {
        if (count > max) {
            throw new IllegalArgumentException("a key record holds at most " + max + " " + what + ", not " + count);
        }
    }
}
