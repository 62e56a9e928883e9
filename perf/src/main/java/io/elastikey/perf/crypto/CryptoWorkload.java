// CryptoWorkload -- the private-key operations whose rates set the key server's ceiling, with their inputs.
package io.elastikey.perf.crypto;

import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.SecureRandom;
import javax.crypto.Cipher;

/**
 * One benchmarked operation: a key type and how to make a realistic request for a key of it.
 * Decryptions get a fresh PKCS#1 v1.5 pre-master secret encrypted by the JDK, as a TLS 1.2 client
 * sends it; signatures get a TLS 1.3 CertificateVerify input (130 bytes). The bad-padding
 * workload is there to compare with the good one: both should cost the same.
 */
public enum CryptoWorkload {
    RSA_2048_DECRYPT(KeyType.RSA_2048),
    RSA_2048_BAD_PADDING(KeyType.RSA_2048),
    RSA_4096_DECRYPT(KeyType.RSA_4096),
    ECDSA_P256_SIGN(KeyType.EC_P256),
    ED25519_SIGN(KeyType.ED25519);

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] CERTIFICATE_VERIFY = (" ".repeat(64) + "TLS 1.3, server CertificateVerify\0"
            + "0123456789abcdef0123456789abcdef").getBytes(StandardCharsets.US_ASCII);

    private final KeyType keyType;

    CryptoWorkload(KeyType keyType) {
        this.keyType = keyType;
    }

    public KeyType keyType() {
        return keyType;
    }

    /** A request of this workload for the key {@code keyId}, whose public key is {@code publicKey}. */
    public SkiRequest request(String keyId, PublicKey publicKey) throws GeneralSecurityException {
        return switch (this) {
            case RSA_2048_DECRYPT, RSA_4096_DECRYPT -> SkiRequest.rsa(keyId, encryptPremaster(publicKey));
            case RSA_2048_BAD_PADDING -> SkiRequest.rsa(keyId, encryptWithoutPadding(publicKey));
            case ECDSA_P256_SIGN -> SkiRequest.sign(keyId, SignatureScheme.ECDSA_SECP256R1_SHA256, CERTIFICATE_VERIFY);
            case ED25519_SIGN -> SkiRequest.sign(keyId, SignatureScheme.ED25519, CERTIFICATE_VERIFY);
        };
    }

    private static byte[] encryptPremaster(PublicKey key) throws GeneralSecurityException {
        byte[] premaster = new byte[48];
        RANDOM.nextBytes(premaster);
        premaster[0] = 3;
        premaster[1] = 3;
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, key);
        return cipher.doFinal(premaster);
    }

    /** A random block below the modulus, encrypted raw: its padding is almost surely invalid. */
    private static byte[] encryptWithoutPadding(PublicKey key) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("RSA/ECB/NoPadding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, key);
        byte[] block = new byte[cipher.getOutputSize(0)];
        RANDOM.nextBytes(block);
        block[0] = 0;
        return cipher.doFinal(block);
    }
}
