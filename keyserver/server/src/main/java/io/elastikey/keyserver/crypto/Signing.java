package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Signature;

/**
 * Signs an input with a key as a {@link SignatureRecipe} says. The recipe has already been
 * checked against the key's type ({@link SignatureSelection}).
 *
 * <p>Outputs are what TLS puts on the wire: PKCS#1 v1.5 and PSS signatures as many bytes as the
 * modulus, ECDSA as a DER {@code ECDSA-Sig-Value}, Ed25519 as 64 bytes.
 */
final class Signing {
    private static final int MD5_LENGTH = 16;
    private static final int SHA1_LENGTH = 20;

    private Signing() {
    }

    static byte[] sign(LoadedKey key, SignatureRecipe recipe, byte[] input, JcaObjects jca)
            throws GeneralSecurityException {
        return switch (recipe.kind()) {
            case SIGNATURE -> signWithJca(key, recipe, input, jca);
            case SIGNATURE_OVER_MD5_SHA1 -> signWithJca(key, recipe, md5Sha1(input, jca), jca);
            case RAW_RSA_OVER_MD5_SHA1 -> {
                int length = (RsaDecryption.modulus(key).bitLength() + 7) / 8;
                byte[] block = Pkcs1.type1(md5Sha1(input, jca), length);
                yield RsaDecryption.privateOperation(key.privateKey(), block, length, jca);
            }
        };
    }

    /** A JCA {@code Signature} over {@code input}; for a {@link P256ScalarKey}, the native signer over its hash. */
    private static byte[] signWithJca(LoadedKey key, SignatureRecipe recipe, byte[] input, JcaObjects jca)
            throws GeneralSecurityException {
        if (key.privateKey() instanceof P256ScalarKey scalar) {
            String hash = recipe.ecdsaHash();
            byte[] hashValue = hash == null ? input : jca.digest(hash).digest(input);
            return jca.signP256(scalar, hashValue);
        }
        Signature signature = jca.signature(recipe);
        signature.initSign(key.privateKey());
        signature.update(input);
        return signature.sign();
    }

    /** MD5(input) || SHA-1(input): the 36-byte TLS 1.0/1.1 handshake hash. */
    static byte[] md5Sha1(byte[] input, JcaObjects jca) throws GeneralSecurityException {
        byte[] out = new byte[MD5_LENGTH + SHA1_LENGTH];
        MessageDigest md5 = jca.digest("MD5");
        md5.update(input);
        md5.digest(out, 0, MD5_LENGTH);
        MessageDigest sha1 = jca.digest("SHA-1");
        sha1.update(input);
        sha1.digest(out, MD5_LENGTH, SHA1_LENGTH);
        return out;
    }
}
