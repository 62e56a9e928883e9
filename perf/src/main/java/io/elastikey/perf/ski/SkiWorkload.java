// SkiWorkload -- which key request i names, and its request: signatures built on the fly, RSA ciphertexts prepared.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

import javax.crypto.Cipher;

import io.elastikey.perf.load.ZipfKeys;
import io.elastikey.perf.ski.SkiKeySet.Key;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiMethod;
import io.elastikey.protocol.ski.SkiRequest;

/**
 * Request {@code i} takes key {@code i mod keys} in round-robin order, a uniformly random key, or a Zipf-distributed
 * one ({@link ZipfKeys}: popularity falls as {@code 1 / rank^s}, the popular keys scattered over the list).
 *
 * <p>Inputs are what TLS would send: for signatures ({@code SIGN}, {@code ECDHE}) 128 random bytes, about the size of
 * ServerKeyExchange parameters or a TLS 1.3 CertificateVerify context, drawn when the request is made: that costs
 * well under a microsecond, so nothing is stored per key and a million keys cost nothing beyond the key set. For
 * {@code RSA} and {@code RSA-RAW} the input is a 48-byte pre-master secret (TLS 1.2 version bytes, then random)
 * encrypted with PKCS#1 v1.5 under the key, which costs as much as the operation measured (tens of microseconds);
 * those are prepared before the clock starts, {@code variantsPerKey} per key, into a table of at most
 * {@value #RSA_PREPARED_LIMIT} requests. A request whose (key, variant) does not fit is prepared when first sent,
 * on the sending thread, and replaces the entry in its slot; {@link #preparedLate()} counts those.
 */
final class SkiWorkload {
    static final int PREMASTER_LENGTH = 48;
    static final int SIGNED_INPUT_LENGTH = 128;
    static final int RSA_PREPARED_LIMIT = 1 << 16;
    static final double DEFAULT_ZIPF_EXPONENT = 1.1;

    /**
     * What to send and what to check the answer against. {@code premaster} is the secret of the RSA methods, or the
     * message whose hash a {@code *-DIGEST} request carries; {@code null} for the rest.
     */
    record Prepared(SkiRequest request, Key key, byte[] premaster) {
    }

    /** How request numbers map to keys. */
    enum KeyOrder {
        ROUND_ROBIN, RANDOM, ZIPF
    }

    /** A prepared RSA request and which (key, variant) it is for: {@code key * variantsPerKey + variant}. */
    private record Slot(long id, Prepared prepared) {
    }

    private final SkiKeySet keys;
    private final SkiMethod method;
    private final SkiHash hash;
    private final SignatureScheme scheme;
    private final KeyOrder order;
    private final ZipfKeys zipf;
    private final int variantsPerKey;
    private final Slot[] rsa;
    private final LongAdder preparedLate = new LongAdder();

    private SkiWorkload(SkiKeySet keys, SkiMethod method, SkiHash hash, SignatureScheme scheme, KeyOrder order,
                        double zipfExponent, int variantsPerKey, int rsaLimit) {
        this.keys = keys;
        this.method = method;
        this.hash = hash;
        this.scheme = scheme;
        this.order = order;
        this.zipf = order == KeyOrder.ZIPF ? new ZipfKeys(keys.size(), zipfExponent) : null;
        this.variantsPerKey = variantsPerKey;
        this.rsa = isRsa(method)
                ? new Slot[(int) Math.min(rsaLimit, (long) keys.size() * variantsPerKey)] : null;
    }

    /** As {@link #prepare(SkiKeySet, SkiMethod, SkiHash, SignatureScheme, KeyOrder, double, int)}, Zipf at 1.1. */
    static SkiWorkload prepare(SkiKeySet keys, SkiMethod method, SkiHash hash, SignatureScheme scheme,
            KeyOrder order, int variantsPerKey) {
        return prepare(keys, method, hash, scheme, order, DEFAULT_ZIPF_EXPONENT, variantsPerKey);
    }

    /**
     * A workload over {@code keys}; for the RSA methods its table of prepared requests is filled, in parallel.
     *
     * @param scheme       for {@code SIGN}: the scheme, or null for each key's own
     *                     ({@link Signatures#defaultSchemeFor})
     * @param zipfExponent for {@link KeyOrder#ZIPF}: the exponent {@code s} (> 0)
     */
    static SkiWorkload prepare(SkiKeySet keys, SkiMethod method, SkiHash hash, SignatureScheme scheme,
            KeyOrder order, double zipfExponent, int variantsPerKey) {
        return prepare(keys, method, hash, scheme, order, zipfExponent, variantsPerKey, RSA_PREPARED_LIMIT);
    }

    /** As above, with at most {@code rsaLimit} RSA requests prepared ahead (tests use a small table). */
    static SkiWorkload prepare(SkiKeySet keys, SkiMethod method, SkiHash hash, SignatureScheme scheme,
            KeyOrder order, double zipfExponent, int variantsPerKey, int rsaLimit) {
        if (variantsPerKey < 1 || rsaLimit < 1) {
            throw new IllegalArgumentException("variantsPerKey and rsaLimit must be at least 1");
        }
        SkiWorkload workload = new SkiWorkload(keys, method, hash, scheme, order, zipfExponent, variantsPerKey,
                rsaLimit);
        if (workload.rsa != null) {
            Slot[] table = workload.rsa;
            IntStream.range(0, table.length).parallel().forEach(id -> table[id] = workload.slot(id,
                    ThreadLocalRandom.current()));
        }
        return workload;
    }

    /** RSA variants per key so that small key sets still send some variety: at least one, 64 requests in all. */
    static int defaultVariants(int keys) {
        return Math.max(1, 64 / keys);
    }

    /** The request numbered {@code i} (0-based). {@code random} is the calling thread's. */
    Prepared request(long i, RandomGenerator random) {
        int key = switch (order) {
            case ROUND_ROBIN -> (int) (i % keys.size());
            case RANDOM -> random.nextInt(keys.size());
            case ZIPF -> (int) zipf.next(random);
        };
        if (rsa == null) {
            return prepare(keys.key(key), method, hash, scheme, random);
        }
        long id = (long) key * variantsPerKey + (i / keys.size()) % variantsPerKey;
        int index = (int) (id % rsa.length);
        Slot slot = rsa[index]; // a racy read: Slot's fields are final, so a slot seen is a slot complete
        if (slot == null || slot.id != id) {
            preparedLate.increment();
            slot = slot(id, random);
            rsa[index] = slot;
        }
        return slot.prepared;
    }

    /** RSA requests that were not prepared ahead but when sent (more keys x variants than the table holds). */
    long preparedLate() {
        return preparedLate.sum();
    }

    /** How many RSA requests were prepared ahead; 0 for the signing methods, which prepare nothing. */
    int preparedAhead() {
        return rsa == null ? 0 : rsa.length;
    }

    private Slot slot(long id, RandomGenerator random) {
        return new Slot(id, prepare(keys.key((int) (id / variantsPerKey)), method, hash, scheme, random));
    }

    static Prepared prepare(Key key, SkiMethod method, SkiHash hash, SignatureScheme scheme, RandomGenerator random) {
        return switch (method) {
            case RSA, RSA_RAW -> {
                byte[] premaster = new byte[PREMASTER_LENGTH];
                random.nextBytes(premaster);
                premaster[0] = 3;
                premaster[1] = 3;
                byte[] encrypted = encrypt(key, premaster);
                yield new Prepared(method == SkiMethod.RSA ? SkiRequest.rsa(key.spki(), encrypted)
                        : SkiRequest.rsaRaw(key.spki(), encrypted), key, premaster);
            }
            case ECDHE -> new Prepared(SkiRequest.ecdhe(key.spki(), hash, randomInput(random)), key, null);
            case PKCS1_DIGEST, PSS_DIGEST, ECDSA_DIGEST -> {
                byte[] message = randomInput(random);
                byte[] digest = Signatures.hashValue(hash, message);
                yield new Prepared(SkiRequest.signDigest(method, key.spki(), hash, digest), key, message);
            }
            case SIGN -> new Prepared(SkiRequest.sign(key.spki(),
                    scheme != null ? scheme : Signatures.defaultSchemeFor(key.type()), randomInput(random)), key, null);
        };
    }

    private static boolean isRsa(SkiMethod method) {
        return method == SkiMethod.RSA || method == SkiMethod.RSA_RAW;
    }

    private static byte[] encrypt(Key key, byte[] premaster) {
        try {
            Cipher rsa = Cipher.getInstance("RSA/ECB/PKCS1Padding");
            rsa.init(Cipher.ENCRYPT_MODE, key.publicKey(), new SecureRandom());
            return rsa.doFinal(premaster);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot encrypt a pre-master secret with key " + key.spki(), e);
        }
    }

    private static byte[] randomInput(RandomGenerator random) {
        byte[] input = new byte[SIGNED_INPUT_LENGTH];
        random.nextBytes(input);
        return input;
    }
}
