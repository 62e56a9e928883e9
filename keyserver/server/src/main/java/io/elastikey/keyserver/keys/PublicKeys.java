// PublicKeys -- the public half of a private key, so a key can be matched to its certificate without signing.
package io.elastikey.keyserver.keys;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;

/**
 * Derives the public key of a private key with Bouncy Castle's lightweight API (never registered as a provider):
 * RSA from the CRT key's modulus and public exponent, EC by multiplying the base point, Ed25519 by its own rule.
 *
 * <p>Importing pairs key files with certificate files by comparing key IDs, and the repository refuses a key
 * whose certificate is for another key; both need this. It costs one scalar multiplication for EC and Ed25519,
 * nothing for RSA, and no signature, so it is cheap enough for bulk imports.
 */
public final class PublicKeys {
    private PublicKeys() {
    }

    /**
     * The public key of {@code privateKey}, as a JDK key object.
     *
     * @throws InvalidKeyException when the key is of an unsupported kind or lacks what derivation needs (an RSA
     *     key without its public exponent); the message names only the algorithm
     */
    public static PublicKey of(PrivateKey privateKey) throws GeneralSecurityException {
        byte[] der = privateKey.getEncoded();
        if (der == null) {
            throw new InvalidKeyException("a " + privateKey.getAlgorithm() + " private key that cannot be exported");
        }
        AsymmetricKeyParameter parameters;
        try {
            parameters = PrivateKeyFactory.createKey(PrivateKeyInfo.getInstance(der));
        } catch (IOException | RuntimeException e) {
            throw new InvalidKeyException("an unreadable " + privateKey.getAlgorithm() + " private key ("
                    + e.getClass().getSimpleName() + ")");
        } finally {
            Arrays.fill(der, (byte) 0);
        }
        AsymmetricKeyParameter publicParameters;
        if (parameters instanceof RSAPrivateCrtKeyParameters rsa) {
            publicParameters = new RSAKeyParameters(false, rsa.getModulus(), rsa.getPublicExponent());
        } else if (parameters instanceof ECPrivateKeyParameters ec) {
            var point = new FixedPointCombMultiplier().multiply(ec.getParameters().getG(), ec.getD()).normalize();
            publicParameters = new ECPublicKeyParameters(point, ec.getParameters());
        } else if (parameters instanceof Ed25519PrivateKeyParameters ed) {
            publicParameters = ed.generatePublicKey();
        } else {
            throw new InvalidKeyException("cannot derive the public key of a " + privateKey.getAlgorithm()
                    + " private key (RSA with CRT parameters, EC and Ed25519 are supported)");
        }
        try {
            byte[] spki = SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(publicParameters).getEncoded();
            String algorithm = privateKey.getAlgorithm().equals("EdDSA") ? "Ed25519" : privateKey.getAlgorithm();
            return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(spki));
        } catch (IOException e) {
            throw new InvalidKeyException("cannot encode the public key of a " + privateKey.getAlgorithm() + " key");
        }
    }
}
