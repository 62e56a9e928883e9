package io.elastikey.protocol.ski;

/**
 * The private-key operation an SKI request asks for (PROTOCOLS.md section 1).
 *
 * <p>{@code RSA} and {@code ECDHE} are the draft's own methods, kept under the names existing
 * clients send. {@code SIGN} and {@code RSA-RAW} are Elastikey's additions: TLS 1.3 needs
 * signatures named by scheme, and BoringSSL checks RSA padding itself.
 */
public enum SkiMethod {
    /** Decrypt a PKCS#1 v1.5 encrypted pre-master secret, with implicit rejection of bad padding. */
    RSA("RSA"),
    /** Raw RSA decryption: a block of the modulus size, padding neither removed nor checked. */
    RSA_RAW("RSA-RAW"),
    /** Sign ServerKeyExchange parameters with the key's own algorithm and the request's {@code hash}. */
    ECDHE("ECDHE"),
    /** Sign with the TLS 1.3 signature scheme named in the request's {@code scheme}. */
    SIGN("SIGN");

    private static final SkiMethod[] VALUES = values();

    private final String wireName;

    SkiMethod(String wireName) {
        this.wireName = wireName;
    }

    /** The name on the wire, as in the {@code method} field. */
    public String wireName() {
        return wireName;
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
