package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import java.security.GeneralSecurityException;

/**
 * The private-key operations of the SKI protocol, run synchronously on the calling thread: the
 * {@link CryptoEngine} calls this from its workers, and benchmarks and tests call it directly.
 *
 * <ul>
 *   <li>{@code RSA}: PKCS#1 v1.5 decryption of a 48-byte pre-master secret with implicit
 *       rejection: a bad block gets a deterministic pseudo-random 48-byte answer, no exception.</li>
 *   <li>{@code RSA-RAW}: {@code c^d mod n}, as many bytes as the modulus.</li>
 *   <li>{@code ECDHE}: RSA keys sign PKCS#1 v1.5 with the request's hash (MD5-SHA1: no
 *       DigestInfo), EC keys sign ECDSA (MD5-SHA1: over the 36-byte concatenation), Ed25519
 *       keys sign the input itself and ignore the hash.</li>
 *   <li>{@code SIGN}: the TLS 1.3 scheme named, which must fit the key.</li>
 *   <li>{@code RSA-PKCS1-DIGEST}, {@code RSA-PSS-DIGEST}, {@code ECDSA-DIGEST}: a signature of the input as a value
 *       of {@code hash} ({@link DigestSigning}): what the Keyless protocol's signing opcodes are.</li>
 * </ul>
 *
 * <p>Errors: a method, hash or scheme that does not fit the key, or an input of the wrong size,
 * is {@link SkiError#MALFORMED_REQUEST}; a provider failure is
 * {@link SkiError#UNSPECIFIED_ERROR}. Exception messages name the problem, never the data.
 *
 * <p>Thread-safe: each calling thread gets its own JCA objects, made on first use.
 */
public final class CryptoOperations implements KeyOperation {
    private final CryptoProvider provider;
    private final RsaDecryption rsa;
    private final ThreadLocal<JcaObjects> jca;

    /**
     * @param provider        where JCA objects come from
     * @param rejectionSecret 32 bytes keying the implicit-rejection answers; copied. Keep it
     *                        stable across restarts (and across servers behind one name) for the
     *                        same ciphertext to get the same answer everywhere.
     */
    public CryptoOperations(CryptoProvider provider, byte[] rejectionSecret) {
        this.provider = provider;
        this.rsa = new RsaDecryption(new ImplicitRejection(provider, rejectionSecret));
        this.jca = ThreadLocal.withInitial(() -> new JcaObjects(provider));
    }

    public CryptoProvider provider() {
        return provider;
    }

    /**
     * Runs {@code request} with {@code key}; returns a new array the caller owns.
     *
     * @throws SkiException with {@link SkiError#MALFORMED_REQUEST} or {@link SkiError#UNSPECIFIED_ERROR}
     */
    @Override
    public byte[] perform(LoadedKey key, SkiRequest request) {
        JcaObjects objects = jca.get();
        try {
            return switch (request.method()) {
                case RSA -> rsa.premaster(key, request.input(), objects);
                case RSA_RAW -> rsa.raw(key, request.input(), objects);
                case ECDHE -> Signing.sign(key, SignatureSelection.forEcdhe(key.type(), request.hash()),
                        request.input(), objects);
                case SIGN -> Signing.sign(key, SignatureSelection.forScheme(key.type(), request.scheme()),
                        request.input(), objects);
                case PKCS1_DIGEST -> DigestSigning.pkcs1(key, request.hash(), request.input(), objects);
                case PSS_DIGEST -> DigestSigning.pss(key, request.hash(), request.input(), objects);
                case ECDSA_DIGEST -> DigestSigning.ecdsa(key, request.hash(), request.input(), objects);
            };
        } catch (SkiException | NoPooledNonce e) {
            throw e;
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new SkiException(SkiError.UNSPECIFIED_ERROR, request.method().wireName() + " with a "
                    + key.type().cliName() + " key failed: " + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * Only keys signed by the native P-256 signer qualify: with a nonce from the pool what is left of a signature is
     * a hash of the input and two modular multiplications; every other operation of such a key fails on its checks
     * before any private-key arithmetic. Without a pooled nonce, null.
     */
    @Override
    public byte[] performIfCheap(LoadedKey key, SkiRequest request) {
        if (!(key.privateKey() instanceof P256ScalarKey)) {
            return null;
        }
        JcaObjects objects = jca.get();
        objects.pooledNoncesOnly(true);
        try {
            return perform(key, request);
        } catch (NoPooledNonce e) {
            return null;
        } finally {
            objects.pooledNoncesOnly(false);
        }
    }
}
