package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.interfaces.RSAKey;
import javax.crypto.Cipher;

/**
 * The two RSA decryptions: {@code RSA} (a TLS pre-master secret, with implicit rejection) and
 * {@code RSA-RAW} (the bare private operation, for TLS stacks that check padding themselves).
 *
 * <p>Both refuse, as malformed, a ciphertext that is not exactly the modulus length or not
 * smaller than the modulus (RFC 8017 RSADP step 1). Those checks only involve public values,
 * so they reveal nothing an attacker could not compute; everything after them treats valid and
 * invalid padding alike (see {@link Pkcs1}).
 *
 * <p>{@code RSA-RAW} and the MD5-SHA1 signature run the private operation in the JCA's
 * "encrypt with the private key" mode: the JDK then checks the result with the public key
 * before releasing it, which stops a CRT fault from leaking the key (AWS-LC, behind ACCP, checks
 * every private operation anyway). Their outputs go to the client, so the check leaks nothing.
 * The pre-master decryption uses decrypt mode, where the JDK does not run that check: it would
 * put the secret message through non-constant-time arithmetic, and a fault there yields only a
 * bad block, hence a substitute answer.
 */
final class RsaDecryption {
    private final ImplicitRejection rejection;

    RsaDecryption(ImplicitRejection rejection) {
        this.rejection = rejection;
    }

    /** The 48-byte pre-master secret in {@code ciphertext}, or its implicit-rejection substitute. */
    byte[] premaster(LoadedKey key, byte[] ciphertext, JcaObjects jca) throws GeneralSecurityException {
        int length = checkCiphertext(key, ciphertext);
        if (length < Pkcs1.PREMASTER_LENGTH + 11) {
            throw SignatureSelection.malformed("an RSA modulus this short cannot carry a pre-master secret");
        }
        Cipher cipher = jca.rawRsa();
        cipher.init(Cipher.DECRYPT_MODE, key.privateKey());
        byte[] block = leftPad(cipher.doFinal(ciphertext), length);
        byte[] substitute = rejection.substitute(key.keyId(), ciphertext);
        return Pkcs1.premasterOrSubstitute(block, substitute);
    }

    /** {@code ciphertext^d mod n}, as many bytes as the modulus. */
    byte[] raw(LoadedKey key, byte[] ciphertext, JcaObjects jca) throws GeneralSecurityException {
        int length = checkCiphertext(key, ciphertext);
        return privateOperation(key.privateKey(), ciphertext, length, jca);
    }

    /** The raw private operation on a block the caller built and may reveal (see the class comment). */
    static byte[] privateOperation(PrivateKey key, byte[] block, int length, JcaObjects jca)
            throws GeneralSecurityException {
        Cipher cipher = jca.rawRsa();
        cipher.init(Cipher.ENCRYPT_MODE, key);
        return leftPad(cipher.doFinal(block), length);
    }

    /** The modulus length in bytes, once {@code ciphertext} is known to be a valid RSA input for it. */
    static int checkCiphertext(LoadedKey key, byte[] ciphertext) {
        if (!SignatureSelection.isRsa(key.type())) {
            throw SignatureSelection.malformed("RSA decryption asked of a " + key.type().cliName() + " key");
        }
        BigInteger modulus = modulus(key);
        int length = (modulus.bitLength() + 7) / 8;
        if (ciphertext.length != length) {
            throw SignatureSelection.malformed("RSA input of " + ciphertext.length + " bytes for a "
                    + length + "-byte modulus");
        }
        if (new BigInteger(1, ciphertext).compareTo(modulus) >= 0) {
            throw SignatureSelection.malformed("RSA input not smaller than the modulus");
        }
        return length;
    }

    static BigInteger modulus(LoadedKey key) {
        return ((RSAKey) key.privateKey()).getModulus();
    }

    /**
     * Providers answer as many bytes as the modulus (checked by the tests for ACCP and the JDK);
     * this only guards against one that drops leading zeros.
     */
    private static byte[] leftPad(byte[] bytes, int length) {
        if (bytes.length == length) {
            return bytes;
        }
        if (bytes.length > length) {
            throw new IllegalStateException("the provider answered more bytes than the modulus has");
        }
        byte[] padded = new byte[length];
        System.arraycopy(bytes, 0, padded, length - bytes.length, bytes.length);
        return padded;
    }
}
