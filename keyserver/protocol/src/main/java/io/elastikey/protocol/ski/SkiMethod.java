package io.elastikey.protocol.ski;

/**
 * The private-key operation an SKI request asks for (PROTOCOLS.md section 1).
 *
 * <p>{@code RSA} and {@code ECDHE} are the draft's own methods, kept under the names existing
 * clients send. {@code SIGN} and {@code RSA-RAW} are Elastikey's additions: TLS 1.3 needs
 * signatures named by scheme, and BoringSSL checks RSA padding itself. The three {@code *-DIGEST}
 * methods sign a hash value the client computed, as the Keyless protocol asks (PROTOCOLS.md
 * section 2); SKI clients may send them too, with {@code hash} naming the digest.
 */
public enum SkiMethod {
    /** Decrypt a PKCS#1 v1.5 encrypted pre-master secret, with implicit rejection of bad padding. */
    RSA("RSA"),
    /** Raw RSA decryption: a block of the modulus size, padding neither removed nor checked. */
    RSA_RAW("RSA-RAW"),
    /** Sign ServerKeyExchange parameters with the key's own algorithm and the request's {@code hash}. */
    ECDHE("ECDHE"),
    /** Sign with the TLS 1.3 signature scheme named in the request's {@code scheme}. */
    SIGN("SIGN"),
    /** RSA PKCS#1 v1.5 signature of the {@code hash} value in the input (MD5-SHA1: without a DigestInfo). */
    PKCS1_DIGEST("RSA-PKCS1-DIGEST"),
    /** RSASSA-PSS signature of the {@code hash} value in the input, MGF1 with the same hash, salt as long as it. */
    PSS_DIGEST("RSA-PSS-DIGEST"),
    /** ECDSA signature of the {@code hash} value in the input. */
    ECDSA_DIGEST("ECDSA-DIGEST");

    private static final SkiMethod[] VALUES = values();

    private final String wireName;

    SkiMethod(String wireName) {
        this.wireName = wireName;
    }

    /** The name on the wire, as in the {@code method} field. */
    public String wireName() {
        return wireName;
    }

    /** Whether requests of this method name a digest in their {@code hash} field. */
    public boolean usesHash() {
        return this == ECDHE || this == PKCS1_DIGEST || this == PSS_DIGEST || this == ECDSA_DIGEST;
    }

    /** Whether the input is a hash value rather than the data to sign. */
    public boolean signsDigest() {
        return this == PKCS1_DIGEST || this == PSS_DIGEST || this == ECDSA_DIGEST;
    }

    /** The method with this wire name (exact, case-sensitive), or {@code null}. */
    public static SkiMethod fromWire(String name) {
        for (SkiMethod method : VALUES) {
            if (method.wireName.equals(name)) {
                return method;
            }
        }
        return null;
    }
}
