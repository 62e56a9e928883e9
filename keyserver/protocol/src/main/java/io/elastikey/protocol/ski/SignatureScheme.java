package io.elastikey.protocol.ski;

/**
 * The TLS 1.3 signature schemes a {@code SIGN} request may name (RFC 8446 section 4.2.3),
 * under their RFC names and code points.
 */
public enum SignatureScheme {
    RSA_PKCS1_SHA1("rsa_pkcs1_sha1", 0x0201),
    RSA_PKCS1_SHA256("rsa_pkcs1_sha256", 0x0401),
    RSA_PKCS1_SHA384("rsa_pkcs1_sha384", 0x0501),
    RSA_PKCS1_SHA512("rsa_pkcs1_sha512", 0x0601),
    ECDSA_SHA1("ecdsa_sha1", 0x0203),
    ECDSA_SECP256R1_SHA256("ecdsa_secp256r1_sha256", 0x0403),
    ECDSA_SECP384R1_SHA384("ecdsa_secp384r1_sha384", 0x0503),
    ECDSA_SECP521R1_SHA512("ecdsa_secp521r1_sha512", 0x0603),
    RSA_PSS_RSAE_SHA256("rsa_pss_rsae_sha256", 0x0804),
    RSA_PSS_RSAE_SHA384("rsa_pss_rsae_sha384", 0x0805),
    RSA_PSS_RSAE_SHA512("rsa_pss_rsae_sha512", 0x0806),
    ED25519("ed25519", 0x0807),
    RSA_PSS_PSS_SHA256("rsa_pss_pss_sha256", 0x0809),
    RSA_PSS_PSS_SHA384("rsa_pss_pss_sha384", 0x080a),
    RSA_PSS_PSS_SHA512("rsa_pss_pss_sha512", 0x080b);

    private static final SignatureScheme[] VALUES = values();

    private final String wireName;
    private final int codePoint;

    SignatureScheme(String wireName, int codePoint) {
        this.wireName = wireName;
        this.codePoint = codePoint;
    }

    /** The RFC 8446 name, as in the {@code scheme} field. */
    public String wireName() {
        return wireName;
    }

    /** The two-byte code point TLS puts on the wire. */
    public int codePoint() {
        return codePoint;
    }

    /** The scheme with this name (exact, lower case), or {@code null}. */
    public static SignatureScheme fromWire(String name) {
        for (SignatureScheme scheme : VALUES) {
            if (scheme.wireName.equals(name)) {
                return scheme;
            }
        }
        return null;
    }

    /** The scheme with this code point, or {@code null}. */
    public static SignatureScheme fromCodePoint(int codePoint) {
        for (SignatureScheme scheme : VALUES) {
            if (scheme.codePoint == codePoint) {
                return scheme;
            }
        }
        return null;
    }
}
