package io.elastikey.keyserver.crypto;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import javax.crypto.Cipher;

/**
 * The independent side of every check: the JDK's own providers, named explicitly so that an
 * installed ACCP never verifies its own output, and plain BigInteger arithmetic.
 */
final class JdkCrypto {
    private JdkCrypto() {
    }

    static boolean verify(String algorithm, PublicKey key, byte[] data, byte[] signature)
            throws GeneralSecurityException {
        return verify(algorithm, null, key, data, signature);
    }

    static boolean verify(String algorithm, AlgorithmParameterSpec parameters, PublicKey key, byte[] data,
                          byte[] signature) throws GeneralSecurityException {
        String provider = algorithm.contains("RSA") ? "SunRsaSign" : "SunEC";
        Signature verifier = Signature.getInstance(algorithm, provider);
        if (parameters != null) {
            verifier.setParameter(parameters);
        }
        verifier.initVerify(key);
        verifier.update(data);
        return verifier.verify(signature);
    }

    /** The PSS parameters TLS 1.3 requires: MGF1 with the same hash, salt as long as the hash. */
    static PSSParameterSpec pss(String hash) {
        int length = Integer.parseInt(hash.substring(4)) / 8;
        return new PSSParameterSpec(hash, "MGF1", new MGF1ParameterSpec(hash), length, 1);
    }

    static byte[] md5Sha1(byte[] data) throws GeneralSecurityException {
        byte[] md5 = MessageDigest.getInstance("MD5", "SUN").digest(data);
        byte[] sha1 = MessageDigest.getInstance("SHA-1", "SUN").digest(data);
        byte[] both = new byte[36];
        System.arraycopy(md5, 0, both, 0, 16);
        System.arraycopy(sha1, 0, both, 16, 20);
        return both;
    }

    /** PKCS#1 v1.5 encryption, as a TLS client encrypts its pre-master secret. */
    static byte[] encryptPkcs1(PublicKey key, byte[] message) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, key);
        return cipher.doFinal(message);
    }

    /** {@code block^e mod n}, as many bytes as the modulus: encrypts any block, padded or not. */
    static byte[] rawPublic(PublicKey key, byte[] block) {
        RSAPublicKey rsa = (RSAPublicKey) key;
        BigInteger c = new BigInteger(1, block).modPow(rsa.getPublicExponent(), rsa.getModulus());
        return toBytes(c, modulusLength(key));
    }

    static int modulusLength(PublicKey key) {
        return (((RSAPublicKey) key).getModulus().bitLength() + 7) / 8;
    }

    /** Big-endian, left-padded with zeros to {@code length} bytes. */
    static byte[] toBytes(BigInteger value, int length) {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[length];
        int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
        return out;
    }
}
