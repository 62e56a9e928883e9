// PublicView -- listing, showing and exporting keys from the clear part of their records, never unsealing.
package io.elastikey.keyserver.keys;

import static io.elastikey.keyserver.keys.StoreLayout.certificateKey;
import static io.elastikey.keyserver.keys.StoreLayout.recordKey;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.KeyValueStore;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only operations that need no KEK: everything here comes from record headers and certificate entries,
 * which are public. Walks use {@link KeyValueStore#forEach} and hold one entry at a time, so they stream through
 * a million keys; a damaged record is skipped with a warning rather than ending the walk.
 */
final class PublicView {
    private static final Logger LOG = LoggerFactory.getLogger(PublicView.class);

    private PublicView() {
    }

    static void forEachKey(KeyValueStore store, Predicate<KeySummary> visitor) {
        try {
            store.forEach((key, value) -> {
                if (StoreLayout.isRecordKey(key)) {
                    KeyRecord record = decodeOrNull(key, value);
                    if (record != null && !visitor.test(summary(StoreLayout.keyIdOf(key), record))) {
                        throw StopWalk.INSTANCE;
                    }
                }
            });
        } catch (StopWalk stop) {
            // the visitor has seen enough
        }
    }

    static KeyDetails details(KeyValueStore store, byte[] keyId) {
        byte[] stored = store.get(recordKey(keyId));
        KeyRecord record = stored == null ? null : decodeOrNull(recordKey(keyId), stored);
        if (record == null) {
            return null;
        }
        List<String> others = new ArrayList<>();
        for (int i = 0; i < record.otherCertificates(); i++) {
            byte[] other = store.get(certificateKey(keyId, i));
            if (other != null && other.length > KeyIds.SHA1_LENGTH) {
                others.add(KeyIds.hex(Arrays.copyOf(other, KeyIds.SHA1_LENGTH)));
            }
        }
        List<X509Certificate> chain;
        try {
            chain = ChainPem.decode(record.chainPem());
        } catch (CertificateException e) {
            chain = List.of();
        }
        return new KeyDetails(summary(keyId, record), chain, others);
    }

    static List<String> certificatesPem(KeyValueStore store, byte[] keyId, boolean chains) {
        byte[] stored = store.get(recordKey(keyId));
        KeyRecord record = stored == null ? null : decodeOrNull(recordKey(keyId), stored);
        if (record == null) {
            return List.of();
        }
        List<String> pems = new ArrayList<>();
        pems.add(ChainPem.text(record.chainPem(), chains));
        for (int i = 0; i < record.otherCertificates(); i++) {
            byte[] other = store.get(certificateKey(keyId, i));
            if (other != null && other.length > KeyIds.SHA1_LENGTH) {
                pems.add(ChainPem.text(Arrays.copyOfRange(other, KeyIds.SHA1_LENGTH, other.length), chains));
            }
        }
        return pems;
    }

    static void forEachCertificatePem(KeyValueStore store, boolean chains, BiConsumer<String, String> visitor) {
        store.forEach((key, value) -> {
            if (StoreLayout.isRecordKey(key)) {
                KeyRecord record = decodeOrNull(key, value);
                if (record != null) {
                    visitor.accept(KeyIds.hex(StoreLayout.keyIdOf(key)), ChainPem.text(record.chainPem(), chains));
                }
            } else if (key.length == 37 && key[0] == StoreLayout.CERTIFICATE && value.length > KeyIds.SHA1_LENGTH) {
                String keyId = KeyIds.hex(Arrays.copyOfRange(key, 1, 33));
                visitor.accept(keyId, ChainPem.text(Arrays.copyOfRange(value, KeyIds.SHA1_LENGTH, value.length),
                        chains));
            }
        });
    }

    static KeySummary summary(byte[] keyId, KeyRecord record) {
        byte[] modulus = record.alias(AliasKind.MODULUS_SHA256);
        return new KeySummary(KeyIds.hex(keyId), record.type(), record.created(), record.tags(), record.names(),
                hexOrNull(record.alias(AliasKind.CERTIFICATE_SHA1)), hexOrNull(record.alias(AliasKind.KEYLESS_SKI)),
                modulus == null ? null : KeyIds.hex(modulus), 1 + record.otherCertificates());
    }

    private static String hexOrNull(byte[] digest) {
        return digest == null ? null : KeyIds.hex(digest);
    }

    /** The record stored under {@code key}, or {@code null}, with a warning, when it is too damaged to read. */
    static KeyRecord decodeOrNull(byte[] key, byte[] value) {
        try {
            return KeyRecord.decode(value);
        } catch (IllegalArgumentException e) {
            LOG.warn("key {}: skipping a damaged record ({})", KeyIds.hex(StoreLayout.keyIdOf(key)), e.getMessage());
            return null;
        }
    }
}
