// KeyUnsealer -- a stored record to a LoadedKey: authenticate, unseal, parse once, wipe the plaintext.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;

/**
 * Opens key records. The PEM plaintext and the PKCS#8 DER exist only for the duration of {@link #unseal}, in
 * arrays that are zeroed before it returns; what remains is the parser's key object. Every failure becomes a
 * {@link SealedRecordException} naming the key and the likely cause, never the bytes or the underlying message.
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
        String id = KeyIds.hex(keyId);
        KeyRecord record;
        try {
            record = KeyRecord.decode(stored);
        } catch (IllegalArgumentException e) {
            throw new SealedRecordException("key " + id + ": the stored record is damaged (" + e.getMessage() + ")");
        }
        byte[] pem;
        try {
            pem = sealer.unseal(record.sealedKey(), record.associatedData(keyId));
        } catch (GeneralSecurityException e) {
            throw new SealedRecordException("key " + id + ": cannot unseal the private key: the KEK from "
                    + kek.source() + " is not the one it was sealed with, or the record was altered in the store");
        }
        PrivateKey privateKey = parse(id, record, pem);
        List<X509Certificate> chain;
        try {
            chain = ChainPem.decode(record.chainPem());
        } catch (CertificateException e) {
            throw new SealedRecordException("key " + id + ": the stored certificate does not parse");
        }
        X509Certificate leaf = chain.get(0);
        if (!MessageDigest.isEqual(KeyIds.spkiSha256(leaf.getPublicKey()), keyId)) {
            throw new SealedRecordException("key " + id + ": the stored certificate is for another key");
        }
        return new LoadedKey(id, record.type(), privateKey, leaf.getPublicKey(), leaf, record.tags(),
                CertificateNames.of(leaf));
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
