// Sealer -- AES-256-GCM sealing of private keys under the KEK, bound to associated data.
package io.elastikey.keyserver.keys;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Seals and unseals byte strings with AES-256-GCM under a {@link Kek}.
 *
 * <p>Sealed form: {@code version (1 byte, = 1) | nonce (12 bytes) | ciphertext | tag (16 bytes)}. Each seal draws a
 * fresh random 96-bit nonce, so the same plaintext never seals to the same bytes; NIST SP 800-38D allows 2^32 seals
 * per key with random nonces, which is thousands of full re-imports of a million keys. The associated data is the
 * version byte followed by the caller's data (for key records: the key ID and every public field), so a sealed key
 * moved to another record, or a record whose public part was edited, fails to open.
 *
 * <p>Thread-safe: each thread keeps its own {@link Cipher} (they are not shareable), because looking one up through
 * the provider list costs more than opening a small seal, and unsealing is on the parsed-key cache's miss path.
 * GCM forbids reusing a nonce for encryption, which {@link Cipher#init} enforces per object, so every seal and
 * unseal re-initializes with its own nonce.
 */
final class Sealer {
    static final byte VERSION = 1;
    static final int NONCE_LENGTH = 12;
    static final int TAG_LENGTH = 16;
    static final int OVERHEAD = 1 + NONCE_LENGTH + TAG_LENGTH;

    private static final String TRANSFORMATION = "AES/GCM/NoPadding";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] VERSION_AAD = {VERSION};
    private static final byte[] NO_PREFIX = new byte[0];

    private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(Sealer::newCipher);

    private final Kek kek;

    Sealer(Kek kek) {
        this.kek = kek;
    }

    /** {@code plaintext} sealed and bound to {@code associatedData}. */
    byte[] seal(byte[] plaintext, byte[] associatedData) {
        return seal(plaintext, plaintext.length, associatedData);
    }

    /** The first {@code length} bytes of {@code plaintext} sealed and bound to {@code associatedData}. */
    byte[] seal(byte[] plaintext, int length, byte[] associatedData) {
        byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.ENCRYPT_MODE, kek.secretKey(), new GCMParameterSpec(TAG_LENGTH * 8, nonce));
            cipher.updateAAD(VERSION_AAD);
            cipher.updateAAD(associatedData);
            ByteBuffer out = ByteBuffer.allocate(1 + NONCE_LENGTH + cipher.getOutputSize(length));
            out.put(VERSION).put(nonce);
            cipher.doFinal(ByteBuffer.wrap(plaintext, 0, length), out);
            return out.array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM is unavailable in this Java runtime ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * The plaintext of {@code sealed}, which must have been sealed with the same KEK and associated data.
     *
     * @throws GeneralSecurityException when the version is unknown or authentication fails (wrong KEK, altered
     *     bytes or associated data); the exception carries no data
     */
    byte[] unseal(byte[] sealed, byte[] associatedData) throws GeneralSecurityException {
        return unseal(sealed, NO_PREFIX, associatedData, 0, associatedData.length);
    }

    /**
     * {@link #unseal(byte[], byte[])} with the associated data given in two parts, {@code prefix} then
     * {@code data[offset, offset + length)}, as if concatenated: a key record's associated data is its ID and most
     * of the record, and a copy of them per unseal is what a reload of a million keys would allocate most.
     */
    byte[] unseal(byte[] sealed, byte[] prefix, byte[] data, int offset, int length) throws GeneralSecurityException {
        if (sealed.length < OVERHEAD) {
            throw new GeneralSecurityException("sealed data is too short");
        }
        if (sealed[0] != VERSION) {
            throw new GeneralSecurityException("unknown seal version " + sealed[0]);
        }
        Cipher cipher = ciphers.get();
        cipher.init(Cipher.DECRYPT_MODE, kek.secretKey(),
                new GCMParameterSpec(TAG_LENGTH * 8, sealed, 1, NONCE_LENGTH));
        cipher.updateAAD(VERSION_AAD);
        cipher.updateAAD(prefix);
        cipher.updateAAD(data, offset, length);
        int start = 1 + NONCE_LENGTH;
        return cipher.doFinal(sealed, start, sealed.length - start);
    }

    private static Cipher newCipher() {
        try {
            return Cipher.getInstance(TRANSFORMATION);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256-GCM is unavailable in this Java runtime ("
                    + e.getClass().getSimpleName() + ")");
        }
    }
}
