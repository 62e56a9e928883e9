// KeyWriter -- adds and removes keys: records, aliases, earlier certificates and the key count, in one batch each.
package io.elastikey.keyserver.keys;

import static io.elastikey.keyserver.keys.StoreLayout.aliasKey;
import static io.elastikey.keyserver.keys.StoreLayout.certificateKey;
import static io.elastikey.keyserver.keys.StoreLayout.recordKey;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.KeyValueStore;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side of the repository. Writes are serialized by one lock: a bulk add is one {@code putAll} of a whole
 * batch (one fsync for ElasticStore), so writers gain nothing from running side by side, and the lock keeps
 * read-modify-write of a record (a key added again) and the key count exact within this process.
 *
 * <p>Order inside a batch: for each key its aliases, then its earlier-certificate entries, then its record; the
 * count last. A crash keeps a prefix (see {@link KeyValueStore#putAll}): an alias whose record is missing resolves
 * to nothing, and adding the key again completes it. {@link #remove} deletes in the reverse order, record last, so a
 * remove interrupted by a crash can be repeated.
 */
final class KeyWriter {
    private static final Logger LOG = LoggerFactory.getLogger(KeyWriter.class);

    private final KeyValueStore store;
    private final Sealer sealer;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong count = new AtomicLong();

    KeyWriter(KeyValueStore store, Sealer sealer) {
        this.store = store;
        this.sealer = sealer;
        byte[] stored = store.get(StoreLayout.COUNT);
        if (stored != null && stored.length == Long.BYTES) {
            count.set(ByteBuffer.wrap(stored).getLong());
        } else {
            recount();
        }
    }

    /**
     * Stores every entry in one {@code putAll}. An entry whose key is already stored updates it: the new
     * certificate becomes current (the previous one stays resolvable as an earlier certificate), the tags are
     * replaced, the creation time is kept.
     *
     * @return each key of the batch once, in the batch's order, with whether it was added or updated
     * @throws IllegalStateException when an alias of an entry already names another key (a digest collision) or
     *     the stored record of an existing key is damaged; nothing of the batch is written then
     */
    Map<String, KeyChange> addAll(List<KeyEntry> entries) {
        Map<String, List<KeyEntry>> byKey = new LinkedHashMap<>();
        for (KeyEntry entry : entries) {
            byKey.computeIfAbsent(entry.keyId(), k -> new ArrayList<>()).add(entry);
        }
        lock.lock();
        try {
            List<Map.Entry<byte[], byte[]>> writes = new ArrayList<>(entries.size() * 4 + 1);
            long added = 0;
            Map<String, KeyChange> changes = new LinkedHashMap<>();
            for (List<KeyEntry> sameKey : byKey.values()) {
                PendingKey pending = PendingKey.start(store, sameKey.get(0));
                added += pending.isNew() ? 1 : 0;
                changes.put(sameKey.get(0).keyId(), pending.isNew() ? KeyChange.ADDED : KeyChange.UPDATED);
                sameKey.forEach(pending::add);
                pending.finish(sealer, writes);
            }
            writes.add(Map.entry(StoreLayout.COUNT, longBytes(count.get() + added)));
            store.putAll(writes);
            count.addAndGet(added);
            return changes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes a key's record and every alias and earlier certificate of it.
     *
     * @return the aliases (hex) that named it, or {@code null} when the key was not stored
     */
    List<String> remove(byte[] keyId) {
        lock.lock();
        try {
            byte[] stored = store.get(recordKey(keyId));
            if (stored == null) {
                return null;
            }
            List<String> removed = new ArrayList<>();
            try {
                KeyRecord record = KeyRecord.decode(stored);
                aliasDigests(keyId, record).forEach(digest -> deleteAlias(digest, keyId, removed));
                for (int i = 0; i < record.otherCertificates(); i++) {
                    store.delete(certificateKey(keyId, i));
                }
            } catch (IllegalArgumentException e) {
                LOG.warn("key {}: damaged record removed; its aliases could not be read ({})", KeyIds.hex(keyId),
                        e.getMessage());
            }
            store.delete(recordKey(keyId));
            store.put(StoreLayout.COUNT, longBytes(count.decrementAndGet()));
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Every identifier a client may name the stored key {@code keyId} by, hex: the key ID, its aliases and the SHA-1s
     * of its earlier certificates; just the key ID when it is not stored or its record does not decode.
     */
    List<String> identifiersOf(byte[] keyId) {
        List<String> identifiers = new ArrayList<>(List.of(KeyIds.hex(keyId)));
        byte[] stored = store.get(recordKey(keyId));
        if (stored != null) {
            try {
                aliasDigests(keyId, KeyRecord.decode(stored)).forEach(d -> identifiers.add(KeyIds.hex(d)));
            } catch (IllegalArgumentException e) {
                // a damaged record: finding the key fails anyway, so nothing of it is cached under an alias
            }
        }
        return identifiers;
    }

    /** The digests of {@code record}'s aliases and of its earlier certificates (each stored beside the record). */
    private List<byte[]> aliasDigests(byte[] keyId, KeyRecord record) {
        List<byte[]> digests = new ArrayList<>();
        record.aliases().forEach(alias -> digests.add(alias.digest()));
        for (int i = 0; i < record.otherCertificates(); i++) {
            byte[] other = store.get(certificateKey(keyId, i));
            if (other != null && other.length >= KeyIds.SHA1_LENGTH) {
                digests.add(Arrays.copyOf(other, KeyIds.SHA1_LENGTH));
            }
        }
        return digests;
    }

    long count() {
        return count.get();
    }

    /** Counts the records by walking the store (reads every entry), and stores the result. */
    long recount() {
        lock.lock();
        try {
            AtomicLong records = new AtomicLong();
            store.forEach((key, value) -> {
                if (StoreLayout.isRecordKey(key)) {
                    records.incrementAndGet();
                }
            });
            count.set(records.get());
            store.put(StoreLayout.COUNT, longBytes(records.get()));
            return records.get();
        } finally {
            lock.unlock();
        }
    }

    private void deleteAlias(byte[] digest, byte[] keyId, List<String> removed) {
        byte[] target = store.get(aliasKey(digest));
        if (target != null && MessageDigest.isEqual(target, keyId)) {
            store.delete(aliasKey(digest));
            removed.add(KeyIds.hex(digest));
        }
    }

    static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }
}
