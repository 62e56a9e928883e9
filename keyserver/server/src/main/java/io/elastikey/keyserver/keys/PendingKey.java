// PendingKey -- one key's share of a write batch: its existing record merged with the entries being added.
package io.elastikey.keyserver.keys;

import static io.elastikey.keyserver.keys.StoreLayout.aliasKey;
import static io.elastikey.keyserver.keys.StoreLayout.certificateKey;
import static io.elastikey.keyserver.keys.StoreLayout.recordKey;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.KeyValueStore;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges the entries of one key in a batch with what the store holds for it. A key may be added under several
 * certificates (a renewed certificate, or {@code keys generate --rsa-pool}, which certifies one RSA key many
 * times): the record keeps the latest as its current certificate, and each earlier one moves to an entry of its
 * own ({@code 'C' + key ID + index}) whose fingerprint alias keeps resolving. A certificate already stored for the
 * key changes nothing but the tags. Used under {@link KeyWriter}'s lock.
 */
final class PendingKey {
    private final KeyValueStore store;
    private final byte[] keyId;
    private final boolean isNew;
    private final Instant created;
    private final List<Map.Entry<byte[], byte[]>> writes = new ArrayList<>();
    private final Set<String> fingerprintsInBatch = new HashSet<>();
    private int otherCertificates;
    private byte[] currentFingerprint;
    private byte[] currentChainPem;
    private List<String> names;
    private KeyEntry latest;

    private PendingKey(KeyValueStore store, byte[] keyId, KeyRecord existing) {
        this.store = store;
        this.keyId = keyId;
        this.isNew = existing == null;
        this.created = existing == null ? Instant.now() : existing.created();
        if (existing != null) {
            otherCertificates = existing.otherCertificates();
            currentFingerprint = existing.alias(AliasKind.CERTIFICATE_SHA1);
            currentChainPem = existing.chainPem();
            names = existing.names();
        }
    }

    /** Reads the stored record of {@code first}'s key, if any. */
    static PendingKey start(KeyValueStore store, KeyEntry first) {
        byte[] keyId = first.keyIdBytes();
        byte[] stored = store.get(recordKey(keyId));
        KeyRecord existing = null;
        if (stored != null) {
            try {
                existing = KeyRecord.decode(stored);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("key " + first.keyId() + " is stored but its record is damaged ("
                        + e.getMessage() + "); remove it, then add it again");
            }
        }
        return new PendingKey(store, keyId, existing);
    }

    boolean isNew() {
        return isNew;
    }

    void add(KeyEntry entry) {
        latest = entry;
        byte[] fingerprint = KeyIds.certificateSha1(entry.certificate());
        if (currentFingerprint != null && MessageDigest.isEqual(fingerprint, currentFingerprint)) {
            currentChainPem = ChainPem.encode(entry.chain()); // the same certificate, perhaps a fuller chain
            return;
        }
        if (!fingerprintsInBatch.add(KeyIds.hex(fingerprint)) || namesThisKey(fingerprint, "certificate SHA-1")) {
            return; // an earlier certificate of this key: only the tags change
        }
        if (currentFingerprint != null) {
            byte[] earlier = ByteBuffer.allocate(currentFingerprint.length + currentChainPem.length)
                    .put(currentFingerprint).put(currentChainPem).array();
            writes.add(Map.entry(certificateKey(keyId, otherCertificates++), earlier));
        }
        currentFingerprint = fingerprint;
        currentChainPem = ChainPem.encode(entry.chain());
        names = CertificateNames.of(entry.certificate());
        writes.add(Map.entry(aliasKey(fingerprint), keyId));
    }

    /** Appends this key's writes to {@code batch}: aliases and earlier certificates, then the sealed record. */
    void finish(Sealer sealer, List<Map.Entry<byte[], byte[]>> batch) {
        List<KeyRecord.Alias> aliases = new ArrayList<>();
        aliases.add(new KeyRecord.Alias(AliasKind.CERTIFICATE_SHA1, currentFingerprint));
        aliases.add(new KeyRecord.Alias(AliasKind.KEYLESS_SKI, KeyIds.keylessSki(latest.certificate().getPublicKey())));
        if (latest.type().keyAlgorithm().equals("RSA")) {
            aliases.add(new KeyRecord.Alias(AliasKind.MODULUS_SHA256,
                    KeyIds.modulusDigest(latest.certificate().getPublicKey())));
        }
        for (KeyRecord.Alias alias : aliases.subList(1, aliases.size())) {
            namesThisKey(alias.digest(), alias.kind().label());
            writes.add(Map.entry(aliasKey(alias.digest()), keyId));
        }
        KeyRecord record = new KeyRecord(latest.type(), created, latest.tags(), names, aliases, otherCertificates,
                currentChainPem, new byte[0]);
        byte[] der = latest.privateKey().getEncoded();
        byte[] pem = Pkcs8Pem.encode(der);
        try {
            byte[] sealed = sealer.seal(pem, record.associatedData(keyId));
            writes.add(Map.entry(recordKey(keyId), record.withSealedKey(sealed).encode()));
        } finally {
            Arrays.fill(der, (byte) 0);
            Arrays.fill(pem, (byte) 0);
        }
        batch.addAll(writes);
    }

    /**
     * Whether the alias {@code digest} already names this key.
     *
     * @throws IllegalStateException when it names another key
     */
    private boolean namesThisKey(byte[] digest, String what) {
        byte[] target = store.get(aliasKey(digest));
        if (target == null) {
            return false;
        }
        if (!MessageDigest.isEqual(target, keyId)) {
            throw new IllegalStateException("cannot add key " + KeyIds.hex(keyId) + ": its " + what + " "
                    + KeyIds.hex(digest) + " already names key " + KeyIds.hex(target));
        }
        return true;
    }
}
