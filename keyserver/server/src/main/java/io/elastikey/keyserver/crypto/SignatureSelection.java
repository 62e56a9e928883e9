package io.elastikey.keyserver.crypto;

import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiHash;

/**
 * Which {@link SignatureRecipe} answers an {@code ECDHE} hash or a {@code SIGN} scheme for a key
 * of a given type, and which combinations are malformed requests.
 *
 * <p>{@code ECDHE} is TLS 1.2's ServerKeyExchange signature: the key's own algorithm with the
 * request's hash. For an Ed25519 key the hash is ignored (RFC 8422: EdDSA signs the message).
 * {@code SIGN} names a TLS 1.3 scheme, which fixes the algorithm, hash and, for ECDSA, the
 * curve; a scheme that does not fit the key is refused rather than bent to fit. The
 * {@code rsa_pss_pss_*} schemes need a key whose SubjectPublicKeyInfo is RSASSA-PSS, which no
 * key here has (RSA keys are rsaEncryption, served by {@code rsa_pss_rsae_*}).
 */
final class SignatureSelection {
    private SignatureSelection() {
    }

    static SignatureRecipe forEcdhe(KeyType type, SkiHash hash) {
        if (type == KeyType.ED25519) {
            return SignatureRecipe.ED25519;
        }
        if (hash == null) {
            throw malformed("ECDHE request without a hash");
        }
        if (isRsa(type)) {
            return switch (hash) {
                case MD5_SHA1 -> SignatureRecipe.RSA_PKCS1_MD5_SHA1;
                case SHA1 -> SignatureRecipe.RSA_PKCS1_SHA1;
                case SHA224 -> SignatureRecipe.RSA_PKCS1_SHA224;
                case SHA256 -> SignatureRecipe.RSA_PKCS1_SHA256;
                case SHA384 -> SignatureRecipe.RSA_PKCS1_SHA384;
                case SHA512 -> SignatureRecipe.RSA_PKCS1_SHA512;
            };
        }
        return switch (hash) {
            case MD5_SHA1 -> SignatureRecipe.ECDSA_MD5_SHA1;
            case SHA1 -> SignatureRecipe.ECDSA_SHA1;
            case SHA224 -> SignatureRecipe.ECDSA_SHA224;
            case SHA256 -> SignatureRecipe.ECDSA_SHA256;
            case SHA384 -> SignatureRecipe.ECDSA_SHA384;
            case SHA512 -> SignatureRecipe.ECDSA_SHA512;
        };
    }

    static SignatureRecipe forScheme(KeyType type, SignatureScheme scheme) {
        if (scheme == null) {
            throw malformed("SIGN request without a scheme");
        }
        return switch (scheme) {
            case RSA_PKCS1_SHA1 -> rsa(type, scheme, SignatureRecipe.RSA_PKCS1_SHA1);
            case RSA_PKCS1_SHA256 -> rsa(type, scheme, SignatureRecipe.RSA_PKCS1_SHA256);
            case RSA_PKCS1_SHA384 -> rsa(type, scheme, SignatureRecipe.RSA_PKCS1_SHA384);
            case RSA_PKCS1_SHA512 -> rsa(type, scheme, SignatureRecipe.RSA_PKCS1_SHA512);
            case RSA_PSS_RSAE_SHA256 -> rsa(type, scheme, SignatureRecipe.RSA_PSS_SHA256);
            case RSA_PSS_RSAE_SHA384 -> rsa(type, scheme, SignatureRecipe.RSA_PSS_SHA384);
            case RSA_PSS_RSAE_SHA512 -> rsa(type, scheme, SignatureRecipe.RSA_PSS_SHA512);
            case ECDSA_SHA1 -> only(type, scheme, SignatureRecipe.ECDSA_SHA1, KeyType.EC_P256, KeyType.EC_P384);
            case ECDSA_SECP256R1_SHA256 -> only(type, scheme, SignatureRecipe.ECDSA_SHA256, KeyType.EC_P256);
            case ECDSA_SECP384R1_SHA384 -> only(type, scheme, SignatureRecipe.ECDSA_SHA384, KeyType.EC_P384);
            case ED25519 -> only(type, scheme, SignatureRecipe.ED25519, KeyType.ED25519);
            case ECDSA_SECP521R1_SHA512 -> throw malformed("scheme " + scheme.wireName() + " needs a P-521 key");
            case RSA_PSS_PSS_SHA256, RSA_PSS_PSS_SHA384, RSA_PSS_PSS_SHA512 ->
                    throw malformed("scheme " + scheme.wireName() + " needs an RSASSA-PSS key");
        };
    }

    static boolean isRsa(KeyType type) {
        return "RSA".equals(type.keyAlgorithm());
    }

    private static SignatureRecipe rsa(KeyType type, SignatureScheme scheme, SignatureRecipe recipe) {
        if (!isRsa(type)) {
            throw mismatch(type, scheme);
        }
        return recipe;
    }

    private static SignatureRecipe only(KeyType type, SignatureScheme scheme, SignatureRecipe recipe,
                                        KeyType... allowed) {
        for (KeyType a : allowed) {
            if (a == type) {
                return recipe;
            }
        }
        throw mismatch(type, scheme);
    }

    private static SkiException mismatch(KeyType type, SignatureScheme scheme) {
        return malformed("scheme " + scheme.wireName() + " does not fit a " + type.cliName() + " key");
    }

    static SkiException malformed(String reason) {
        return new SkiException(SkiError.MALFORMED_REQUEST, reason);
    }
}
