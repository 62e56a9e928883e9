// CorruptRecordException -- a stored record failed its checksum or framing check.
package io.elastikey.store;

/**
 * The record holding one key failed verification (CRC32C mismatch, impossible length, or a key
 * that is not the one asked for). Only that key is affected: the store keeps serving others.
 */
public final class CorruptRecordException extends StoreException {
    private static final long serialVersionUID = 1L;

    public CorruptRecordException(String message) {
        super(message);
    }
}
