package io.elastikey.keyserver.crypto;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import javax.crypto.Cipher;

/**
 * One thread's JCA objects, made on first use and kept: {@code getInstance} walks the provider
 * list, reflects and, with ACCP, allocates native contexts, which costs more than some of the
 * operations themselves. JCA objects are not thread-safe, so each worker thread has its own
 * ({@link CryptoOperations} holds these in a {@code ThreadLocal}).
 *
 * <p>{@code Signature} objects are keyed by {@link SignatureRecipe}, whose parameters (PSS) are
 * set once here; {@code initSign} with another key keeps them. Objects hold the last key they
 * were initialised with until the next operation replaces it.
 *
 * <p>Not thread-safe, by design.
 */
final class JcaObjects {
    /** Raw RSA, both ways: no padding added or removed by the provider. */
    static final String RAW_RSA = "RSA/ECB/NoPadding";

    private final CryptoProvider provider;
    private final Map<SignatureRecipe, Signature> signatures = new EnumMap<>(SignatureRecipe.class);
    private final Map<String, MessageDigest> digests = new HashMap<>(4);
    private Cipher rawRsa;
    private SecureRandom random;
    private boolean pooledNoncesOnly;

    JcaObjects(CryptoProvider provider) {
        this.provider = provider;
    }

    /** The signature object of {@code recipe}, parameters set, not yet initialised with a key. */
    Signature signature(SignatureRecipe recipe) throws GeneralSecurityException {
        Signature signature = signatures.get(recipe);
        if (signature == null) {
            signature = provider.signature(recipe.jcaAlgorithm());
            if (recipe.parameters() != null) {
                signature.setParameter(recipe.parameters());
            }
            signatures.put(recipe, signature);
        }
        return signature;
    }

    /** The native P-256 signer, which the provider has whenever a {@link P256ScalarKey} exists. */
    P256Native p256() {
        return provider.p256().orElseThrow(() -> new IllegalStateException("a P-256 scalar key without the native "
                + "signer that made it"));
    }

    /**
     * While set, {@link #signP256} signs only with a nonce made ahead and throws {@link NoPooledNonce} otherwise:
     * the mode {@link CryptoOperations#performIfCheap} runs operations in.
     */
    void pooledNoncesOnly(boolean only) {
        pooledNoncesOnly = only;
    }

    /** ECDSA P-256 of {@code hashValue} with the native signer, as the mode ({@link #pooledNoncesOnly}) allows. */
    byte[] signP256(P256ScalarKey key, byte[] hashValue) throws GeneralSecurityException {
        if (!pooledNoncesOnly) {
            return p256().sign(key, hashValue, hashValue.length);
        }
        byte[] signature = p256().signWithPooledNonce(key, hashValue, hashValue.length);
        if (signature == null) {
            throw NoPooledNonce.INSTANCE;
        }
        return signature;
    }

    /** The {@value #RAW_RSA} cipher; callers {@code init} it for each operation. */
    Cipher rawRsa() throws GeneralSecurityException {
        if (rawRsa == null) {
            rawRsa = provider.cipher(RAW_RSA);
        }
        return rawRsa;
    }

    /** This thread's source of randomness (PSS salts). */
    SecureRandom random() {
        if (random == null) {
            random = new SecureRandom();
        }
        return random;
    }

    /** A reset digest of {@code algorithm} ({@code digest()} leaves it reset for the next use). */
    MessageDigest digest(String algorithm) throws GeneralSecurityException {
        MessageDigest digest = digests.get(algorithm);
        if (digest == null) {
            digest = provider.messageDigest(algorithm);
            digests.put(algorithm, digest);
        }
        return digest;
    }
}
