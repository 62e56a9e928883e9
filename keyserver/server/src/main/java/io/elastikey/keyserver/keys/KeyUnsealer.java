// KeyUnsealer -- a stored record to a LoadedKey: authenticate, unseal, parse once, wipe the plaintext.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.util.Arrays;

/**
 * Opens key records: the miss path of the parsed-key cache, so it does only what a signature needs. The PEM
 * plaintext and the PKCS#8 DER exist only for the duration of {@link #unseal}, in arrays that are zeroed before it
 * returns; what remains is the parser's key object. Every failure becomes a {@link SealedRecordException} naming the
 * key and the likely cause, never the bytes or the underlying message.
 *
 * <p>The stored certificate is not parsed here. Authorization needs only its names, which the record keeps in the
 * clear; the seal's associated data covers the key ID and the whole header, certificate included, so a record whose
 * certificate was swapped in the store fails to open. That the certificate is the key's own was checked when the
 * key was added ({@link KeyEntry}). The associated data is the stored header itself, not a re-encoding of it.
 */
final class KeyUnsealer {
    private final Sealer sealer;
    private final Kek kek;
    private final PrivateKeyParser parser;

    KeyUnsealer(Sealer sealer, Kek kek, PrivateKeyParser parser) {
        this.sealer = sealer;
        this.kek = kek;
        this.parser = parser;
    }

    LoadedKey unseal(byte[] keyId, byte[] stored) {
        KeyRecord record;
        try {
            record = KeyRecord.decode(stored);
        } catch (IllegalArgumentException e) {
            throw new SealedRecordException("key " + KeyIds.hex(keyId) + ": the stored record is damaged ("
                    + e.getMessage() + ")");
        }
        return unseal(keyId, stored, record);
    }

    /** {@link #unseal(byte[], byte[])} for a caller that has decoded {@code stored} already. */
    LoadedKey unseal(byte[] keyId, byte[] stored, KeyRecord record) {
        String id = KeyIds.hex(keyId);
        byte[] pem;
        try {
            pem = sealer.unseal(record.sealedKey(), keyId, stored, 0, headerLength(stored, record));
        } catch (GeneralSecurityException e) {
            throw new SealedRecordException("key " + id + ": cannot unseal the private key: the KEK from "
                    + kek.source() + " is not the one it was sealed with, or the record was altered in the store");
        }
        PrivateKey privateKey = parse(id, record, pem);
        return new LoadedKey(id, record.type(), privateKey, record.tags(), record.names());
    }

    /**
     * The stored header: everything before the sealed key's length ({@link KeyRecord}). The associated data is the
     * key ID, then this.
     */
    private static int headerLength(byte[] stored, KeyRecord record) {
        return stored.length - Integer.BYTES - record.sealedKey().length;
    }
    private PrivateKey parse(String id, KeyRecord record, byte[] pem) {
        byte[] der = null;
        try {
            der = Pkcs8Pem.decode(pem);
            return parser.parse(record.type(), der);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new SealedRecordException("key " + id + ": the unsealed private key is not a valid "
                    + record.type().cliName() + " key (" + e.getClass().getSimpleName() + ")");
        } finally {
            Arrays.fill(pem, (byte) 0);
            if (der != null) {
                Arrays.fill(der, (byte) 0);
            }
        }
    }
}
