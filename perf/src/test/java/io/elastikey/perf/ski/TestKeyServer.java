// TestKeyServer -- the private-key operations of a key server, done plainly with JDK providers, for SkiTestServer.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import javax.crypto.Cipher;

import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.ski.CannedAnswer;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiRequest;

/**
 * Answers SKI requests with real private keys, each operation spelled out with its JCA algorithm here rather than
 * taken from the generator's {@link Signatures}, so that the generator's verification is checked against an
 * independent statement of the protocol. Covers what the tests send: RSA and RSA-RAW decryption, ECDHE with SHA-256
 * or MD5-SHA1, and SIGN with the default scheme of each key type.
 */
final class TestKeyServer implements Function<SkiRequest, CannedAnswer> {
    private final Map<String, PrivateKey> keys = new HashMap<>();

    TestKeyServer(List<IssuedCertificate> certificates) throws GeneralSecurityException {
        for (IssuedCertificate certificate : certificates) {
            keys.put(SkiKeySet.keyOf(certificate.certificate()).spki(), certificate.privateKey());
        }
    }

    @Override
    public CannedAnswer apply(SkiRequest request) {
        PrivateKey key = keys.get(request.spki());
        if (key == null) {
            return CannedAnswer.error(SkiError.SPKI_NOT_FOUND);
        }
        try {
            return CannedAnswer.output(operate(key, request));
        } catch (GeneralSecurityException e) {
            return CannedAnswer.error(SkiError.UNSPECIFIED_ERROR);
        }
    }

    static byte[] operate(PrivateKey key, SkiRequest request) throws GeneralSecurityException {
        return switch (request.method()) {
            case RSA -> decrypt("RSA/ECB/PKCS1Padding", key, request.input());
            case RSA_RAW -> decrypt("RSA/ECB/NoPadding", key, request.input());
            case ECDHE -> ecdhe(key, request.hash(), request.input());
            case SIGN -> sign(key, request);
            case PKCS1_DIGEST, PSS_DIGEST, ECDSA_DIGEST ->
                    throw new GeneralSecurityException("the test server does not sign digests");
        };
    }

    private static byte[] decrypt(String transformation, PrivateKey key, byte[] input)
            throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance(transformation);
        cipher.init(Cipher.DECRYPT_MODE, key);
        return cipher.doFinal(input);
    }

    private static byte[] ecdhe(PrivateKey key, SkiHash hash, byte[] input) throws GeneralSecurityException {
        boolean rsa = key.getAlgorithm().equals("RSA");
        if (hash == SkiHash.MD5_SHA1) {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(input);
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest(input);
            byte[] both = new byte[36];
            System.arraycopy(md5, 0, both, 0, 16);
            System.arraycopy(sha1, 0, both, 16, 20);
            return sign(rsa ? "NONEwithRSA" : "NONEwithECDSA", key, both);
        }
        if (hash != SkiHash.SHA256) {
            throw new GeneralSecurityException("the test key server signs ECDHE with SHA-256 or MD5-SHA1 only");
        }
        return sign(rsa ? "SHA256withRSA" : "SHA256withECDSA", key, input);
    }

    private static byte[] sign(PrivateKey key, SkiRequest request) throws GeneralSecurityException {
        return switch (request.scheme()) {
            case ED25519 -> sign("Ed25519", key, request.input());
            case ECDSA_SECP256R1_SHA256 -> sign("SHA256withECDSA", key, request.input());
            case ECDSA_SECP384R1_SHA384 -> sign("SHA384withECDSA", key, request.input());
            case RSA_PKCS1_SHA256 -> sign("SHA256withRSA", key, request.input());
            case RSA_PSS_RSAE_SHA256 -> {
                Signature pss = Signature.getInstance("RSASSA-PSS");
                pss.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
                pss.initSign(key);
                pss.update(request.input());
                yield pss.sign();
            }
            default -> throw new GeneralSecurityException("the test key server lacks " + request.scheme());
        };
    }

    private static byte[] sign(String algorithm, PrivateKey key, byte[] data) throws GeneralSecurityException {
        Signature signature = Signature.getInstance(algorithm);
        signature.initSign(key);
        signature.update(data);
        return signature.sign();
    }
}
