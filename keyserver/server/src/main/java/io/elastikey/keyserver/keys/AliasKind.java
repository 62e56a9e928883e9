// AliasKind -- the identifier forms other than the key ID under which a key is also found.
package io.elastikey.keyserver.keys;

/**
 * Which identifier an alias is (PROTOCOLS.md sections 1 and 2). The code is what a key record stores; it never
 * changes meaning once written.
 */
public enum AliasKind {
    /** SHA-1 of a certificate's DER: what SKI clients send. One per certificate of the key. */
    CERTIFICATE_SHA1(1, "certificate SHA-1"),
    /** Keyless tag 0x04: SHA-1 over the subjectPublicKey bit string. */
    KEYLESS_SKI(2, "Keyless SKI"),
    /** Keyless tag 0x01: SHA-256 over the upper-case hex of an RSA modulus. RSA keys only. */
    MODULUS_SHA256(3, "modulus SHA-256");

    private final int code;
    private final String label;

    AliasKind(int code, String label) {
        this.code = code;
        this.label = label;
    }

    int code() {
        return code;
    }

    /** A short human-readable name, e.g. {@code Keyless SKI}. */
    public String label() {
        return label;
    }

    static AliasKind ofCode(int code) {
        for (AliasKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown alias kind " + code);
    }
}
