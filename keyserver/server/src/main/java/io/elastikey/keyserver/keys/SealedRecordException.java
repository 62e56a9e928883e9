// SealedRecordException -- a stored key that cannot be unsealed or decoded: wrong KEK, tampering or damage.
package io.elastikey.keyserver.keys;

/**
 * A key record that does not open: the KEK is not the one it was sealed with, its bytes were altered (AES-GCM
 * authenticates the private key and every public field of the record), or it is not a record at all. The message
 * names the key ID and the likely cause, never key bytes, and no underlying exception is attached whose message
 * could quote them.
 */
public final class SealedRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SealedRecordException(String message) {
        super(message);
    }
}
