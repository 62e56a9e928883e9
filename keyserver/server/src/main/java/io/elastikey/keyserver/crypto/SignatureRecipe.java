package io.elastikey.keyserver.crypto;

import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;

/**
 * Every way the key server signs, as the JCA algorithm and parameters that do it. One constant
 * per distinct JCA configuration, so a worker's {@code Signature} objects can be cached per
 * constant with their parameters set once ({@link JcaObjects}).
 *
 * <p>The two {@code MD5_SHA1} recipes are the TLS 1.0/1.1 signatures: the "digest" is the
 * 36-byte MD5 || SHA-1 concatenation, which RSA signs with PKCS#1 v1.5 type-1 padding and no
 * DigestInfo (there is no OID for it), and ECDSA signs as if it were a hash value.
 */
enum SignatureRecipe {
    RSA_PKCS1_SHA1(Kind.SIGNATURE, "SHA1withRSA", null),
    RSA_PKCS1_SHA224(Kind.SIGNATURE, "SHA224withRSA", null),
    RSA_PKCS1_SHA256(Kind.SIGNATURE, "SHA256withRSA", null),
    RSA_PKCS1_SHA384(Kind.SIGNATURE, "SHA384withRSA", null),
    RSA_PKCS1_SHA512(Kind.SIGNATURE, "SHA512withRSA", null),
    /** MD5 || SHA-1, type-1 padded by {@link Pkcs1} and put through the raw RSA private operation. */
    RSA_PKCS1_MD5_SHA1(Kind.RAW_RSA_OVER_MD5_SHA1, null, null),
    RSA_PSS_SHA256(Kind.SIGNATURE, "RSASSA-PSS", pss("SHA-256", MGF1ParameterSpec.SHA256, 32)),
    RSA_PSS_SHA384(Kind.SIGNATURE, "RSASSA-PSS", pss("SHA-384", MGF1ParameterSpec.SHA384, 48)),
    RSA_PSS_SHA512(Kind.SIGNATURE, "RSASSA-PSS", pss("SHA-512", MGF1ParameterSpec.SHA512, 64)),
    ECDSA_SHA1(Kind.SIGNATURE, "SHA1withECDSA", null),
    ECDSA_SHA224(Kind.SIGNATURE, "SHA224withECDSA", null),
    ECDSA_SHA256(Kind.SIGNATURE, "SHA256withECDSA", null),
    ECDSA_SHA384(Kind.SIGNATURE, "SHA384withECDSA", null),
    ECDSA_SHA512(Kind.SIGNATURE, "SHA512withECDSA", null),
    /** ECDSA over MD5 || SHA-1 as the hash value (truncated to the curve's order, as ECDSA does). */
    ECDSA_MD5_SHA1(Kind.SIGNATURE_OVER_MD5_SHA1, "NONEwithECDSA", null),
    /** ECDSA of a hash value the client computed (the {@code ECDSA-DIGEST} method): the input is signed as it is. */
    ECDSA_HASH_VALUE(Kind.SIGNATURE, "NONEwithECDSA", null),
    /** PureEdDSA: the message itself is signed; there is no separate hash to choose. */
    ED25519(Kind.SIGNATURE, "Ed25519", null);

    /** How the input reaches the private key. */
    enum Kind {
        /** A JCA {@code Signature} over the input. */
        SIGNATURE,
        /** A JCA {@code Signature} over MD5(input) || SHA-1(input). */
        SIGNATURE_OVER_MD5_SHA1,
        /** Raw RSA over the type-1 padded MD5(input) || SHA-1(input). */
        RAW_RSA_OVER_MD5_SHA1
    }

    private final Kind kind;
    private final String jcaAlgorithm;
    private final AlgorithmParameterSpec parameters;

    SignatureRecipe(Kind kind, String jcaAlgorithm, AlgorithmParameterSpec parameters) {
        this.kind = kind;
        this.jcaAlgorithm = jcaAlgorithm;
        this.parameters = parameters;
    }

    Kind kind() {
        return kind;
    }

    /** The JCA {@code Signature} algorithm, or {@code null} for {@link Kind#RAW_RSA_OVER_MD5_SHA1}. */
    String jcaAlgorithm() {
        return jcaAlgorithm;
    }

    /** Parameters to set once on the {@code Signature}, or {@code null}. */
    AlgorithmParameterSpec parameters() {
        return parameters;
    }

    /**
     * For an ECDSA recipe, the hash whose value is signed; {@code null} for {@link #ECDSA_MD5_SHA1} and
     * {@link #ECDSA_HASH_VALUE}, whose input is the hash value already. What a signer needs that takes a hash value, not a message ({@link P256Native}).
     *
     * @throws IllegalStateException for a recipe that is not ECDSA
     */
    String ecdsaHash() {
        return switch (this) {
            case ECDSA_SHA1 -> "SHA-1";
            case ECDSA_SHA224 -> "SHA-224";
            case ECDSA_SHA256 -> "SHA-256";
            case ECDSA_SHA384 -> "SHA-384";
            case ECDSA_SHA512 -> "SHA-512";
            case ECDSA_MD5_SHA1, ECDSA_HASH_VALUE -> null;
            default -> throw new IllegalStateException(this + " is not an ECDSA recipe");
        };
    }

    /** RSASSA-PSS as TLS 1.3 uses it (RFC 8446 section 4.2.3): MGF1 with the same hash, salt as long as the hash. */
    private static PSSParameterSpec pss(String hash, MGF1ParameterSpec mgf1, int saltLength) {
        return new PSSParameterSpec(hash, "MGF1", mgf1, saltLength, PSSParameterSpec.TRAILER_FIELD_BC);
    }
}
