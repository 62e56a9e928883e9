package io.elastikey.keyserver.crypto;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The substitute pre-master secret answered for a ciphertext whose padding is bad: pseudo-random
 * to anyone without the server secret, and the same every time the same ciphertext is sent for
 * the same key, so repeating a probe teaches nothing (the TLS 1.2 countermeasure, RFC 5246
 * section 7.4.7.1, made deterministic as in draft-irtf-cfrg-rsa-guidance's implicit rejection).
 *
 * <p>{@code substitute = HMAC-SHA256(secret, label || 0x01 || len(keyId) || keyId || c) ||
 * HMAC-SHA256(secret, label || 0x02 || len(keyId) || keyId || c)}, with the key ID's length in
 * two bytes; the first 48 bytes are used. The key ID is in it so that the same ciphertext sent
 * for two keys gets unrelated answers. It is computed for every {@code RSA} request, valid or
 * not, so both take the same path.
 *
 * <p>Thread-safe: each thread keeps its own {@code Mac}, keyed once. The secret is held only as
 * the {@code SecretKeySpec} those {@code Mac}s are keyed from; nothing prints it.
 */
final class ImplicitRejection {
    /** The length of the secret, and of the HMAC-SHA256 key it becomes. */
    static final int SECRET_LENGTH = 32;
    /** Two HMAC-SHA256 outputs, of which the first 48 bytes are the substitute. */
    static final int OUTPUT_LENGTH = 64;

    private static final String HMAC = "HmacSHA256";
    private static final byte[] LABEL = "elastikey rsa implicit rejection".getBytes(StandardCharsets.US_ASCII);

    private final ThreadLocal<Mac> macs;

    /**
     * @param secret exactly {@value #SECRET_LENGTH} bytes; copied, so the caller may wipe its array
     * @throws IllegalArgumentException when the secret has another length
     */
    ImplicitRejection(CryptoProvider provider, byte[] secret) {
        if (secret == null || secret.length != SECRET_LENGTH) {
            throw new IllegalArgumentException("the implicit-rejection secret must be " + SECRET_LENGTH + " bytes");
        }
        SecretKeySpec key = new SecretKeySpec(secret, HMAC);
        this.macs = ThreadLocal.withInitial(() -> {
            try {
                Mac mac = provider.mac(HMAC);
                mac.init(key);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(HMAC + " is unavailable", e);
            }
        });
        macs.get(); // fail now, not on the first bad ciphertext
    }

    /** The {@value #OUTPUT_LENGTH}-byte substitute for {@code ciphertext} sent for {@code keyId}. */
    byte[] substitute(String keyId, byte[] ciphertext) throws GeneralSecurityException {
        Mac mac = macs.get();
        byte[] keyIdBytes = keyId.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[OUTPUT_LENGTH];
        for (int block = 1; block <= 2; block++) {
            mac.update(LABEL);
            mac.update((byte) block);
            mac.update((byte) (keyIdBytes.length >>> 8));
            mac.update((byte) keyIdBytes.length);
            mac.update(keyIdBytes);
            mac.update(ciphertext);
            mac.doFinal(out, (block - 1) * 32);
        }
        return out;
    }
}
