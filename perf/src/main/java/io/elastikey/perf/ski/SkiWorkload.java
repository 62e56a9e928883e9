// SkiWorkload -- the requests of a load run, prepared before it starts, and which one request i sends.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

import javax.crypto.Cipher;

import io.elastikey.perf.ski.SkiKeySet.Key;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiMethod;
import io.elastikey.protocol.ski.SkiRequest;

/**
 * Every request a run sends is built before the clock starts, because building one can cost as much as the operation
 * it measures (an RSA public-key encryption of a pre-master secret, tens of microseconds), and the generator's thread
 * must keep the schedule. A key gets {@code variantsPerKey} requests with different random inputs; request {@code i}
 * takes key {@code i mod keys} in round-robin order, or a random one, and cycles through that key's variants.
 *
 * <p>Inputs are what TLS would send: for {@code RSA} and {@code RSA-RAW} a 48-byte pre-master secret (TLS 1.2
 * version bytes, then random) encrypted with PKCS#1 v1.5 under the key; for signatures 128 random bytes, about the
 * size of ServerKeyExchange parameters or a TLS 1.3 CertificateVerify context.
 */
final class SkiWorkload {
    static final int PREMASTER_LENGTH = 48;
    static final int SIGNED_INPUT_LENGTH = 128;

    /** What to send and what to check the answer against. {@code premaster} is set for the RSA methods only. */
    record Prepared(SkiRequest request, Key key, byte[] premaster) {
    }

    /** How request numbers map to keys. */
    enum KeyOrder {
        ROUND_ROBIN, RANDOM
    }

    private final Prepared[] prepared;
    private final int keys;
    private final int variantsPerKey;
    private final KeyOrder order;

    private SkiWorkload(Prepared[] prepared, int keys, int variantsPerKey, KeyOrder order) {
        this.prepared = prepared;
        this.keys = keys;
        this.variantsPerKey = variantsPerKey;
        this.order = order;
    }

    /**
     * Prepares the requests, in parallel.
     *
     * @param scheme for {@code SIGN}: the scheme, or null for each key's own ({@link Signatures#defaultSchemeFor})
     */
    static SkiWorkload prepare(List<Key> keys, SkiMethod method, SkiHash hash, SignatureScheme scheme,
            KeyOrder order, int variantsPerKey) {
        Prepared[] prepared = new Prepared[keys.size() * variantsPerKey];
        IntStream.range(0, prepared.length).parallel().forEach(i -> prepared[i] =
                prepare(keys.get(i / variantsPerKey), method, hash, scheme, ThreadLocalRandom.current()));
        return new SkiWorkload(prepared, keys.size(), variantsPerKey, order);
    }

    /** Variants per key so that small key sets still send some variety: at least one, 64 requests in all. */
    static int defaultVariants(int keys) {
        return Math.max(1, 64 / keys);
    }

    static Prepared prepare(Key key, SkiMethod method, SkiHash hash, SignatureScheme scheme, Random random) {
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
            case SIGN -> new Prepared(SkiRequest.sign(key.spki(),
                    scheme != null ? scheme : Signatures.defaultSchemeFor(key.type()), randomInput(random)), key, null);
        };
    }

    /** The request numbered {@code i} (0-based). {@code random} is the calling thread's, for the random order. */
    Prepared request(long i, RandomGenerator random) {
        int key = order == KeyOrder.ROUND_ROBIN ? (int) (i % keys) : random.nextInt(keys);
        int variant = (int) ((i / keys) % variantsPerKey);
        return prepared[key * variantsPerKey + variant];
    }

    int size() {
        return prepared.length;
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

    private static byte[] randomInput(Random random) {
        byte[] input = new byte[SIGNED_INPUT_LENGTH];
        random.nextBytes(input);
        return input;
    }
}
