// AnswerVerifier -- checks an SKI answer with the public key alone: decrypt round trips and signature verification.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;

import io.elastikey.perf.ski.SkiWorkload.Prepared;
import io.elastikey.protocol.ski.SkiRequest;

/**
 * Whether an answer is right, judged with JDK providers and the certificate's public key, never the server's code:
 * <ul>
 *   <li>{@code RSA}: the output is the pre-master secret that was encrypted.
 *   <li>{@code RSA-RAW}: the output is the whole PKCS#1 v1.5 block, as long as the modulus:
 *       {@code 00 02}, non-zero padding, {@code 00}, then the pre-master secret.
 *   <li>{@code ECDHE} and {@code SIGN}: the output verifies as a signature of the input ({@link Signatures}).
 * </ul>
 * Stateless and thread-safe; each call makes its own {@link Signature}.
 */
final class AnswerVerifier {
    private AnswerVerifier() {
    }

    /** True when {@code output} is the right answer to {@code prepared}. */
    static boolean verify(Prepared prepared, byte[] output) throws GeneralSecurityException {
        SkiRequest request = prepared.request();
        return switch (request.method()) {
            case RSA -> Arrays.equals(prepared.premaster(), output);
            case RSA_RAW -> isPkcs1Block(output, prepared.premaster(), (RSAPublicKey) prepared.key().publicKey());
            case ECDHE -> verifies(Signatures.forEcdhe(request.hash(), prepared.key().type().keyAlgorithm()),
                    prepared, Signatures.ecdheSignedData(request.hash(), prepared.key().type().keyAlgorithm(),
                            request.input()), output);
            case SIGN -> verifies(Signatures.forScheme(request.scheme()), prepared, request.input(), output);
            case PKCS1_DIGEST, ECDSA_DIGEST -> verifies(Signatures.forEcdhe(request.hash(),
                    prepared.key().type().keyAlgorithm()), prepared, Signatures.ecdheSignedData(request.hash(),
                    prepared.key().type().keyAlgorithm(), prepared.premaster()), output);
            case PSS_DIGEST -> verifies(Signatures.forScheme(Signatures.pssScheme(request.hash())), prepared,
                    prepared.premaster(), output);
        };
    }

    private static boolean verifies(Signature verifier, Prepared prepared, byte[] data, byte[] signature)
            throws GeneralSecurityException {
        verifier.initVerify(prepared.key().publicKey());
        verifier.update(data);
        try {
            return verifier.verify(signature);
        } catch (java.security.SignatureException e) {
            return false; // not even shaped like a signature (bad DER, wrong length)
        }
    }

    private static boolean isPkcs1Block(byte[] block, byte[] premaster, RSAPublicKey key) {
        int length = (key.getModulus().bitLength() + 7) / 8;
        int separator = length - premaster.length - 1;
        if (block.length != length || block[0] != 0 || block[1] != 2 || block[separator] != 0) {
            return false;
        }
        for (int i = 2; i < separator; i++) {
            if (block[i] == 0) {
                return false;
            }
        }
        return Arrays.equals(block, separator + 1, length, premaster, 0, premaster.length);
    }
}
