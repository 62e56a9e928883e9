// SkiKeySet -- the keys a load run names, held compactly: per key its certificate's SHA-1, key type and SPKI bytes.
package io.elastikey.perf.ski;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiMethod;

/**
 * The public halves of the keys under test, read from the certificates {@code ./elastikey keys export-public} writes
 * or from a key list ({@link KeyListFile}). The generator needs only three things per key: the name clients send as
 * {@code spki} (the certificate's SHA-1 fingerprint in upper-case hex, what existing SKI clients send, or another
 * 20-byte {@link KeyName}), the key's
 * type (which requests it can serve) and its SubjectPublicKeyInfo, to check answers and to encrypt RSA pre-master
 * secrets.
 *
 * <p><b>Layout.</b> A million keys must not cost a million certificate objects: the set is four arrays. Key
 * {@code i}'s fingerprint is bytes {@code 20 i .. 20 i + 19} of {@code fingerprints}; its type is
 * {@code KeyType.values()[types[i]]}; its SubjectPublicKeyInfo DER is {@code der[derStart[i] .. derStart[i + 1]]}.
 * A P-256 key takes 20 + 1 + 4 + 91 = 116 bytes, so a million take about 116 MB of heap. A {@link Key} (with its
 * fingerprint as hex and a copy of its DER) is made when asked for, and its {@link PublicKey} only when
 * {@link Key#publicKey()} is called. Immutable after loading; {@link #first} shares the arrays.
 */
final class SkiKeySet {
    static final int FINGERPRINT_LENGTH = 20;
    private static final KeyType[] TYPES = KeyType.values();
    private static final HexFormat HEX = HexFormat.of().withUpperCase();

    /**
     * One key under test. Equal to another when the spki (the certificate's fingerprint) is.
     *
     * @param spki    the certificate's SHA-1 fingerprint, upper-case hex
     * @param type    the key's type
     * @param spkiDer the key's SubjectPublicKeyInfo, DER; owned by this key
     */
    record Key(String spki, KeyType type, byte[] spkiDer) {
        boolean isRsa() {
            return "RSA".equals(type.keyAlgorithm());
        }

        /** The public key, decoded from {@link #spkiDer} on every call (tens of microseconds). */
        PublicKey publicKey() throws GeneralSecurityException {
            return KeyFactory.getInstance(type.keyAlgorithm()).generatePublic(new X509EncodedKeySpec(spkiDer));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.spki.equals(spki);
        }

        @Override
        public int hashCode() {
            return spki.hashCode();
        }

        @Override
        public String toString() {
            return "Key[" + type.cliName() + " " + spki + "]";
        }
    }

    private final int size;
    private final byte[] fingerprints;
    private final byte[] types;
    private final int[] derStart;
    private final byte[] der;

    private SkiKeySet(int size, byte[] fingerprints, byte[] types, int[] derStart, byte[] der) {
        this.size = size;
        this.fingerprints = fingerprints;
        this.types = types;
        this.derStart = derStart;
        this.der = der;
    }

    /**
     * Every key in {@code file}: PEM certificates or a key list, told apart by the key list's header line.
     *
     * @throws IOException when the file is missing, malformed, or holds no key
     * @throws IllegalArgumentException when a certificate's key is of a type the key server does not serve
     */
    static SkiKeySet load(Path file) throws IOException {
        return load(file, type -> true, Integer.MAX_VALUE);
    }


    /**
     * The first {@code limit} keys of {@code file} (in file order) that can serve {@code method} (with
     * {@code scheme} for SIGN, null for each key's own); reading stops once there are {@code limit}.
     *
     * @throws IOException when the file is missing or malformed, or holds no key at all
     * @throws IllegalArgumentException when no key of the file can serve the method, naming the types it holds
     */
    static SkiKeySet load(Path file, SkiMethod method, SignatureScheme scheme, int limit) throws IOException {
        return load(file, method, scheme, limit, KeyName.CERTIFICATE_SHA1);
    }

    /** {@link #load(Path, SkiMethod, SignatureScheme, int)}, each key named by {@code name} instead. */
    static SkiKeySet load(Path file, SkiMethod method, SignatureScheme scheme, int limit, KeyName name)
            throws IOException {
        Predicate<KeyType> fits = fits(method, scheme);
        Builder builder = new Builder();
        Set<KeyType> seen = read(file, entry -> {
            if (fits.test(entry.type())) {
                builder.add(new KeyEntry(name.of(entry), entry.type(), entry.spkiDer()));
            }
            return builder.size < limit;
        });
        requireSomeFit(method, scheme, seen);
        return builder.build(seen);
    }

    /**
     * The first {@code limit} keys of {@code file} whose type {@code wanted} accepts.
     *
     * @throws IOException when the file is missing or malformed, or holds no key at all
     * @throws IllegalArgumentException when {@code wanted} accepts none of its keys
     */
    static SkiKeySet load(Path file, Predicate<KeyType> wanted, int limit) throws IOException {
        Builder builder = new Builder();
        Set<KeyType> seen = read(file, entry -> {
            if (wanted.test(entry.type())) {
                builder.add(entry);
            }
            return builder.size < limit;
        });
        return builder.build(seen);
    }

    /** Feeds every key of {@code file} to {@code sink} until it says stop; returns the key types seen. */
    private static Set<KeyType> read(Path file, KeyEntry.Sink sink) throws IOException {
        Set<KeyType> seen = EnumSet.noneOf(KeyType.class);
        KeyEntry.Sink counting = entry -> {
            seen.add(entry.type());
            return sink.accept(entry);
        };
        if (KeyListFile.isKeyList(file)) {
            KeyListFile.read(file, counting);
        } else {
            PemCertificates.read(file, counting);
        }
        if (seen.isEmpty()) {
            throw new IOException(file + " holds no certificate and no key list entry");
        }
        return seen;
    }

    /** The key of one certificate, named by its SHA-1 fingerprint. */
    static Key keyOf(X509Certificate certificate) throws GeneralSecurityException {
        byte[] fingerprint = MessageDigest.getInstance("SHA-1").digest(certificate.getEncoded());
        PublicKey publicKey = certificate.getPublicKey();
        return new Key(HEX.formatHex(fingerprint), KeyType.of(publicKey), publicKey.getEncoded());
    }

    int size() {
        return size;
    }

    /** Key {@code i} (0-based, in file order). */
    Key key(int i) {
        return new Key(spki(i), type(i), Arrays.copyOfRange(der, derStart[i], derStart[i + 1]));
    }

    /** The name a client sends for key {@code i}: its certificate's SHA-1, upper-case hex. */
    String spki(int i) {
        return HEX.formatHex(fingerprints, i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH);
    }

    KeyType type(int i) {
        return TYPES[types[i]];
    }

    /** Every key, as a list whose elements are made on each {@code get}. */
    List<Key> keys() {
        return new AbstractList<>() {
            @Override
            public Key get(int index) {
                return key(index);
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** The key types present, in {@link KeyType} order. */
    Set<KeyType> types() {
        Set<KeyType> present = EnumSet.noneOf(KeyType.class);
        for (int i = 0; i < size && present.size() < TYPES.length; i++) {
            present.add(type(i));
        }
        return present;
    }

    /** The first {@code n} keys (all of them when there are fewer), sharing this set's arrays. */
    SkiKeySet first(int n) {
        return n >= size ? this : new SkiKeySet(n, fingerprints, types, derStart, der);
    }

    /**
     * The keys {@code method} can use: RSA keys for the RSA methods, any key for ECDHE, and for SIGN the keys of the
     * scheme's family ({@code scheme} null means each key's own scheme, so every key fits).
     *
     * @throws IllegalArgumentException when no key fits, naming the key types the set holds
     */
    SkiKeySet fitting(SkiMethod method, SignatureScheme scheme) {
        requireSomeFit(method, scheme, types());
        Predicate<KeyType> fits = fits(method, scheme);
        Builder builder = new Builder();
        for (int i = 0; i < size; i++) {
            if (fits.test(type(i))) {
                builder.add(fingerprints, i * FINGERPRINT_LENGTH, types[i], der, derStart[i], derStart[i + 1]);
            }
        }
        return builder.size == size ? this : builder.build(types());
    }

    /** Whether a key of a type can serve {@code method} (with {@code scheme} for SIGN, null for each key's own). */
    static Predicate<KeyType> fits(SkiMethod method, SignatureScheme scheme) {
        return type -> switch (method) {
            case RSA, RSA_RAW -> "RSA".equals(type.keyAlgorithm());
            case ECDHE -> true;
            case PKCS1_DIGEST, PSS_DIGEST -> "RSA".equals(type.keyAlgorithm());
            case ECDSA_DIGEST -> "EC".equals(type.keyAlgorithm());
            case SIGN -> scheme == null || Signatures.keyAlgorithmOf(scheme).equals(type.keyAlgorithm());
        };
    }

    /** @throws IllegalArgumentException when no type of {@code present} can serve the method, naming them */
    private static void requireSomeFit(SkiMethod method, SignatureScheme scheme, Set<KeyType> present) {
        if (present.stream().noneMatch(fits(method, scheme))) {
            throw new IllegalArgumentException("no key in the key file can serve " + method.wireName()
                    + (scheme != null ? " with " + scheme.wireName() : "") + "; its keys are "
                    + present.stream().map(KeyType::cliName).toList());
        }
    }

    /** Appends keys into growing arrays; {@link #build} trims them. */
    private static final class Builder {
        private int size;
        private byte[] fingerprints = new byte[FINGERPRINT_LENGTH * 64];
        private byte[] types = new byte[64];
        private int[] derStart = new int[65];
        private byte[] der = new byte[64 * 128];

        void add(KeyEntry entry) {
            byte[] spki = entry.spkiDer();
            add(entry.fingerprint(), 0, (byte) entry.type().ordinal(), spki, 0, spki.length);
        }

        void add(byte[] fingerprint, int fingerprintOffset, byte type, byte[] spki, int from, int to) {
            if (size == types.length) {
                fingerprints = Arrays.copyOf(fingerprints, fingerprints.length * 2);
                types = Arrays.copyOf(types, types.length * 2);
                derStart = Arrays.copyOf(derStart, derStart.length * 2 - 1);
            }
            int length = to - from;
            int start = derStart[size];
            if (start + (long) length > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("more than 2 GB of public keys: use a smaller key file");
            }
            if (start + length > der.length) {
                der = Arrays.copyOf(der, (int) Math.min(Integer.MAX_VALUE - 16,
                        Math.max(start + length, der.length * 2L)));
            }
            System.arraycopy(fingerprint, fingerprintOffset, fingerprints, size * FINGERPRINT_LENGTH,
                    FINGERPRINT_LENGTH);
            types[size] = type;
            System.arraycopy(spki, from, der, start, length);
            derStart[size + 1] = start + length;
            size++;
        }

        /** The set; an error naming {@code present} when it is empty. */
        SkiKeySet build(Set<KeyType> present) {
            if (size == 0) {
                throw new IllegalArgumentException("no key of the key file was selected; its keys are "
                        + present.stream().map(KeyType::cliName).toList());
            }
            return new SkiKeySet(size, Arrays.copyOf(fingerprints, size * FINGERPRINT_LENGTH),
                    Arrays.copyOf(types, size), Arrays.copyOf(derStart, size + 1),
                    Arrays.copyOf(der, derStart[size]));
        }
    }
}
