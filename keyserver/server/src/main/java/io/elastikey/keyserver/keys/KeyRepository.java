// KeyRepository -- private keys sealed at rest in any KeyValueStore, found by any of their identifiers.
package io.elastikey.keyserver.keys;

import static io.elastikey.keyserver.keys.StoreLayout.aliasKey;
import static io.elastikey.keyserver.keys.StoreLayout.recordKey;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreException;
import io.elastikey.store.Stores;
import io.elastikey.store.elastic.ElasticStore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key server's keys. Each key is one record in a {@link KeyValueStore}, its private key sealed with
 * AES-256-GCM under the {@link Kek}; every other identifier a client may send (certificate SHA-1, Keyless SKI,
 * modulus digest) is an alias entry pointing at the key ID. The layout is in {@link StoreLayout} and
 * {@link KeyRecord}, and in prose in docs/keys.md.
 *
 * <p>Reading: {@link #find} resolves an identifier (one store {@code get} for a key ID, two for an alias), unseals
 * the record, parses the key once through the {@link PrivateKeyParser}, and keeps the result in a cache bounded by
 * memory ({@link KeyCache}), so a hot key costs a hash lookup. Listing, showing and exporting read only the clear fields
 * and never unseal. Writing goes through {@link KeyWriter}, one {@code putAll} per batch.
 *
 * <p>Only the {@link KeyValueStore} interface is used, so ElasticStore, Redis or an in-memory map all work; with
 * ElasticStore (what {@link #open} uses) one process at a time owns the store.
 *
 * <p>Thread-safe: finds run concurrently with each other and with writes; writes are serialized.
 */
public final class KeyRepository implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KeyRepository.class);
    private static final byte[] KEK_CHECK_TEXT =
            "elastikey key-encryption key check".getBytes(StandardCharsets.US_ASCII);

    private final KeyValueStore store;
    private final boolean ownsStore;
    private final KeyUnsealer unsealer;
    private final KeyWriter writer;
    private final KeyCache cache;
    private final Kek kek;
    private final Sealer snapshotSealer;
    /**
     * The kinds of 20-byte name clients of this process have asked for keys by ({@link AliasKind} code bits), which
     * a bulk load caches beside each key's ID; none yet means {@link #DEFAULT_BULK_NAMES}.
     */
    private final AtomicInteger namesAsked = new AtomicInteger();
    /**
     * What a bulk load names keys by before any client has asked: the certificate SHA-1, what existing SKI clients
     * send. A Keyless client's Subject Key Identifiers join at its first miss: each name costs 75 to 112 bytes a key.
     */
    private static final int DEFAULT_BULK_NAMES = 1 << AliasKind.CERTIFICATE_SHA1.code();

    /**
     * A repository on {@code store}, which the caller keeps and closes.
     *
     * @param cacheBytes the memory parsed keys may take (estimated, heap and native); 0 disables the cache
     * @throws KekException when the store's keys were sealed under another KEK
     */
    public KeyRepository(KeyValueStore store, Kek kek, PrivateKeyParser parser, long cacheBytes) {
        this(store, false, kek, parser, cacheBytes);
    }

    private KeyRepository(KeyValueStore store, boolean ownsStore, Kek kek, PrivateKeyParser parser,
                          long cacheBytes) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.cache = new KeyCache(cacheBytes, parser);
        this.kek = kek;
        Sealer sealer = new Sealer(kek);
        checkKek(store, sealer, kek);
        this.unsealer = new KeyUnsealer(sealer, kek, parser);
        this.snapshotSealer = new Sealer(kek.derivedKek(KeyCacheSnapshot.PURPOSE));
        this.writer = new KeyWriter(store, sealer);
    }

    /**
     * The repository the server and the {@code keys} commands share: the store at {@code config.store()} (an
     * {@link ElasticStore} directory or a Redis URI, see {@link Stores}), the KEK from
     * {@value Kek#ENVIRONMENT_VARIABLE} or {@code config.kekFile()},
     * and a parsed-key cache of {@code config.keyCacheBytes()}. A missing KEK file is created (mode 0600) only while the
     * store holds no sealed data, so a lost or mistyped KEK path never silently starts a second KEK.
     */
    public static KeyRepository open(KeyServerConfig config, PrivateKeyParser parser) {
        KeyValueStore store = Stores.open(config.store(), config::storeConfig);
        try {
            Map<String, String> environment = System.getenv();
            Kek kek;
            if (Kek.isAvailable(environment, config.kekFile())) {
                kek = Kek.resolve(environment, config.kekFile());
            } else if (store.contains(StoreLayout.KEK_CHECK)) {
                throw new KekException("the key store " + Stores.describe(config.store()) + " holds keys "
                        + "sealed under a KEK, but KEK file " + config.kekFile() + " does not exist and "
                        + Kek.ENVIRONMENT_VARIABLE + " is not set; restore the file or set the variable");
            } else {
                kek = Kek.create(config.kekFile());
            }
            return new KeyRepository(store, true, kek, parser, config.keyCacheBytes());
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** Adds one key, or updates it when already stored; returns its key ID. See {@link #addAll}. */
    public String add(KeyEntry entry) {
        return addAll(List.of(entry)).get(0);
    }

    /**
     * Adds keys in one store batch. A key already stored is updated, never duplicated: the entry's certificate
     * becomes its current one (an earlier certificate keeps resolving), its tags replace the old ones.
     *
     * @return the key IDs, in the order of {@code entries}
     * @throws IllegalStateException when an alias of an entry names another key; nothing is written then
     * @throws IllegalArgumentException when a record exceeds the store's value size limit
     */
    public List<String> addAll(List<KeyEntry> entries) {
        return addAll(entries, KeyChange.Listener.NONE);
    }

    /** As {@link #addAll(List)}, telling {@code changes} of each key added or updated once the store has it. */
    public List<String> addAll(List<KeyEntry> entries, KeyChange.Listener changes) {
        Map<String, KeyChange> written = writer.addAll(entries);
        List<String> identifiers = new ArrayList<>();
        written.forEach((keyId, change) -> {
            if (change == KeyChange.UPDATED) {
                identifiers.addAll(writer.identifiersOf(KeyIds.parse(keyId)));
            }
        });
        if (!identifiers.isEmpty()) {
            forget(identifiers);
        }
        written.forEach((keyId, change) -> changes.changed(change, keyId));
        List<String> keyIds = new ArrayList<>(entries.size());
        for (KeyEntry entry : entries) {
            keyIds.add(entry.keyId());
        }
        return keyIds;
    }

    /**
     * The key named by {@code identifier} (key ID, certificate SHA-1, Keyless SKI or modulus digest, hex in either
     * case), unsealed and parsed; {@code null} when no key has that identifier or it is not 40 or 64 hex digits.
     *
     * @throws SealedRecordException when the key's record does not open (wrong KEK, tampering, damage)
     */
    public LoadedKey find(String identifier) {
        String id;
        try {
            id = KeyIds.normalize(identifier);
        } catch (IllegalArgumentException e) {
            cache.unknown();
            return null;
        }
        LoadedKey cached = cache.lookup(id);
        return cached != null ? cached : load(id, KeyIds.parse(id));
    }

    /**
     * {@link #find(String)} on behalf of a caller who may use the keys {@code access} permits. The question is put to
     * the record's clear fields first, so a key the caller may not use costs the store read that tells it exists and
     * nothing more: it is not unsealed, parsed or cached, and an unknown key and a denied one cost about the same.
     * A permitted key is checked again by its authenticated fields once unsealed.
     *
     * @throws SealedRecordException when the key's record does not open (wrong KEK, tampering, damage)
     */
    public KeyLookup find(String identifier, KeyAccess access) {
        String id;
        try {
            id = KeyIds.normalize(identifier);
        } catch (IllegalArgumentException e) {
            cache.unknown();
            return KeyLookup.UNKNOWN;
        }
        LoadedKey cached = cache.lookup(id);
        if (cached != null) {
            return KeyLookup.of(cached, access);
        }
        long generation = cache.generation();
        StoredKey stored = read(KeyIds.parse(id));
        if (stored == null) {
            cache.unknown();
            return KeyLookup.UNKNOWN;
        }
        if (!KeyRecord.clearFieldsPermit(KeyIds.hex(stored.keyId()), stored.record(), access)) {
            cache.unknown(); // a miss that read the store, as an unknown key's
            return KeyLookup.DENIED;
        }
        return KeyLookup.of(cache.load(id, generation, k -> parsed(id, stored)), access);
    }

    /**
     * The key {@code identifier} names when it is in the parsed-key cache, else {@code null}. Never reads the
     * store, so an event loop may call it; on {@code null} call {@link #find(String)} from a thread that may block.
     */
    public LoadedKey findCached(String identifier) {
        try {
            return cache.lookup(KeyIds.normalize(identifier));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * {@link #find(String)} without the parsed-key cache: always reads the store, unseals and parses, and keeps
     * nothing (the start-up warm-up exercises the miss path with it). Not counted in the cache's statistics.
     */
    public LoadedKey findUncached(String identifier) {
        byte[] bytes;
        try {
            bytes = KeyIds.parse(KeyIds.normalize(identifier));
        } catch (IllegalArgumentException e) {
            return null;
        }
        StoredKey stored = read(bytes);
        return stored == null ? null : unsealer.unseal(stored.keyId(), stored.record());
    }

    /**
     * Loads the keys {@code identifiers} name into the parsed-key cache under those identifiers, reading the store in
     * bulk ({@link KeyValueStore#getAll}: ElasticStore reads a batch in the order of its log rather than at random,
     * and without counting a million lookups). Identifiers already cached, malformed or naming no key are skipped, and so is a
     * key whose record does not open (a find of it reports that). Stops early, returning what it cached, once the
     * cache has had to evict for room: what is left is colder than what is in.
     *
     * @return the keys cached by this call
     */
    public int preload(List<String> identifiers) {
        long generation = cache.generation();
        Map<String, byte[]> wanted = new LinkedHashMap<>();
        for (String identifier : identifiers) {
            try {
                String id = KeyIds.normalize(identifier);
                if (!cache.contains(id)) {
                    wanted.put(id, KeyIds.parse(id));
                }
            } catch (IllegalArgumentException e) {
                // not an identifier: skipped, as find would answer it with nothing
            }
        }
        Map<String, byte[]> records = new HashMap<>();
        readRecords(wanted.values().stream().filter(id -> id.length == KeyIds.SHA256_LENGTH).toList(), records);
        Map<String, byte[]> keyIds = new HashMap<>();
        List<byte[]> aliases = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : wanted.entrySet()) {
            if (records.containsKey(e.getKey())) {
                keyIds.put(e.getKey(), e.getValue());
            } else {
                aliases.add(aliasKey(e.getValue()));
            }
        }
        store.getAll(aliases, (alias, keyId) -> keyIds.put(KeyIds.hex(StoreLayout.keyIdOf(alias)), keyId));
        readRecords(keyIds.values().stream().filter(keyId -> !records.containsKey(KeyIds.hex(keyId))).toList(),
                records);
        int cached = 0;
        for (String id : wanted.keySet()) {
            byte[] keyId = keyIds.get(id);
            byte[] record = keyId == null ? null : records.get(KeyIds.hex(keyId));
            if (record == null) {
                continue;
            }
            KeyRecord decoded = PublicView.decodeOrNull(recordKey(keyId), record);
            List<String> names = decoded == null ? new ArrayList<>() : bulkNames(decoded);
            if (!id.equals(KeyIds.hex(keyId)) && !names.contains(id)) {
                names.add(id);
            }
            if (cache.offerNames(names, KeyIds.hex(keyId), generation)) {
                continue;
            }
            try {
                if (!cache.offer(names, generation, unsealer.unseal(keyId, record))) {
                    break;
                }
                cached++;
            } catch (SealedRecordException e) {
                // left for a find to report
            }
        }
        return cached;
    }

    /**
     * Loads stored keys into the parsed-key cache in the store's own order, each under its key ID and the names
     * clients ask by ({@link #bulkNames}: the certificate SHA-1 SKI clients send, until a client asks by another),
     * while the cache has free room and {@code
     * visited} agrees to go on. For a start that has no hot-key file to follow: the first after {@code keys
     * generate} or {@code import}, or any start that finds none. Waiting for clients' misses instead leaves a server
     * over a million keys missing for many minutes under a uniform load (a third of its lookups after 17 minutes in
     * {@code bench ski-scale}), each miss a random store read on a loader thread; the walk reads the store in order
     * and fills the cache once. Keys already cached and records that do not open are passed over (a damaged one
     * with a warning, as {@code keys list} gives; one that does not unseal is left for a find to report).
     *
     * @param visited told after each stored key with the count of keys cached so far; {@code false} ends the walk
     * @return the keys this walk cached
     */
    public long cacheStoredKeys(LongPredicate visited) {
        long generation = cache.generation();
        long[] cached = {0};
        try {
            store.forEach((key, value) -> {
                if (!StoreLayout.isRecordKey(key)) {
                    return;
                }
                byte[] keyId = StoreLayout.keyIdOf(key);
                KeyRecord record = PublicView.decodeOrNull(key, value);
                List<String> names = record == null ? null : bulkNames(record);
                if (names != null && !cache.offerNames(names, KeyIds.hex(keyId), generation)) {
                    try {
                        if (!cache.offer(names, generation, unsealer.unseal(keyId, value, record))) {
                            throw StopWalk.INSTANCE; // full: no free room left for a bulk load
                        }
                        cached[0]++;
                    } catch (SealedRecordException e) {
                        // left for a find to report
                    }
                }
                if (!visited.test(cached[0])) {
                    throw StopWalk.INSTANCE;
                }
            });
        } catch (StopWalk stop) {
            // full, or told to stop
        }
        return cached[0];
    }

    private void readRecords(List<byte[]> keyIds, Map<String, byte[]> records) {
        List<byte[]> recordKeys = keyIds.stream().map(StoreLayout::recordKey).toList();
        store.getAll(recordKeys, (key, record) -> records.put(KeyIds.hex(StoreLayout.keyIdOf(key)), record));
    }

    /**
     * Writes the packed keys of the parsed-key cache to {@code file}, sealed, for the next start to read back whole
     * ({@link KeyCacheSnapshot}: trusted only while the store is unchanged). Returns the keys written, or -1 when the
     * store keeps no write sequence to stamp it with (Redis): then nothing is written and an older file is removed.
     */
    public long saveCacheSnapshot(Path file) throws IOException {
        return saveCacheSnapshot(file, KeyCacheSnapshot.CHUNK);
    }

    /** {@link #saveCacheSnapshot(Path)} sealed in chunks of at most {@code chunk} bytes (tests use small ones). */
    long saveCacheSnapshot(Path file, int chunk) throws IOException {
        OptionalLong sequence = store.writeSequence();
        if (sequence.isEmpty()) {
            Files.deleteIfExists(file);
            return -1;
        }
        long written = cache.saveSnapshot(file, snapshotSealer, sequence.getAsLong(), count(), chunk);
        if (!store.writeSequence().equals(sequence)) { // not while this server runs: the keys commands write
            Files.deleteIfExists(file);
            throw new IOException("the key store was written to while its cache was being saved");
        }
        return written;
    }

    /**
     * Reads what {@link #saveCacheSnapshot} wrote into the parsed-key cache when the store is as it was then, and
     * deletes {@code file} either way. For a start, before it serves.
     */
    public KeyCacheSnapshot.Loaded loadCacheSnapshot(Path file) throws IOException {
        OptionalLong sequence = store.writeSequence();
        if (sequence.isEmpty()) {
            return KeyCacheSnapshot.Loaded.refused(Files.deleteIfExists(file) ? "the key store keeps no write sequence"
                    : KeyCacheSnapshot.Loaded.NO_FILE);
        }
        return cache.loadSnapshot(file, snapshotSealer, sequence.getAsLong(), count());
    }

    /**
     * Up to {@code limit} identifiers of the parsed-key cache, the most valuable first: what a warm start should
     * load (see {@code warmup.HotKeyFile}).
     */
    public List<String> hottestCached(int limit) {
        return cache.hottest(limit);
    }

    /** {@link #find(String)} for the 20 or 32 bytes of an identifier, as the Keyless protocol carries them. */
    public LoadedKey find(byte[] identifier) {
        if (identifier.length != KeyIds.SHA1_LENGTH && identifier.length != KeyIds.SHA256_LENGTH) {
            cache.unknown();
            return null;
        }
        String id = KeyIds.hex(identifier);
        LoadedKey cached = cache.lookup(id);
        return cached != null ? cached : load(id, identifier.clone());
    }

    /**
     * The key ID {@code identifier} names, or {@code null}; nothing is unsealed.
     *
     * @throws IllegalArgumentException when {@code identifier} is not 40 or 64 hex digits
     */
    public String resolve(String identifier) {
        byte[] keyId = resolveBytes(KeyIds.parse(identifier));
        return keyId == null ? null : KeyIds.hex(keyId);
    }

    /**
     * Removes the key {@code identifier} names, with every alias and certificate of it.
     *
     * @return whether there was such a key
     * @throws IllegalArgumentException when {@code identifier} is not 40 or 64 hex digits
     */
    public boolean remove(String identifier) {
        return remove(identifier, KeyChange.Listener.NONE);
    }

    /** As {@link #remove(String)}, telling {@code changes} of the removal once the store has it. */
    public boolean remove(String identifier, KeyChange.Listener changes) {
        byte[] keyId = resolveBytes(KeyIds.parse(identifier));
        List<String> aliases = keyId == null ? null : writer.remove(keyId);
        if (aliases == null) {
            return false;
        }
        List<String> identifiers = new ArrayList<>(aliases);
        identifiers.add(KeyIds.hex(keyId));
        forget(identifiers);
        changes.changed(KeyChange.REMOVED, KeyIds.hex(keyId));
        return true;
    }

    /**
     * Drops a changed key from this cache and tells every other client of a shared store to drop it from theirs
     * ({@link ChangeNotice}). A notice that cannot be sent leaves the change made, and says so loudly: the other
     * servers would serve a removed key from their caches until they restart.
     */
    private void forget(List<String> identifiers) {
        cache.invalidate(identifiers);
        try {
            for (byte[] notice : ChangeNotice.encode(identifiers)) {
                store.announce(notice);
            }
        } catch (StoreException e) {
            LOG.error("keys changed ({} identifiers, e.g. {}), but the other key servers of {} were not told ({}): "
                    + "they keep serving what they cached of them until they restart", identifiers.size(),
                    identifiers.get(0), store, e.getMessage());
        }
    }

    /**
     * Forgets what other clients of a shared store announce they changed ({@link KeyValueStore#follow}), and
     * everything when notices may have been lost; a running server follows its store while it serves. Close the
     * handle to stop.
     */
    public AutoCloseable followChanges() {
        return store.follow(new KeyValueStore.ChangeListener() {
            @Override
            public void announced(byte[] notice) {
                List<String> identifiers = ChangeNotice.decode(notice);
                if (identifiers == null) {
                    LOG.warn("ignored a change notice on {} that is not one ({} bytes)", store, notice.length);
                } else {
                    cache.invalidate(identifiers);
                }
            }

            @Override
            public void missedSome() {
                LOG.warn("the change notices of {} were interrupted (entries of its change log are gone: a lost "
                        + "connection, a Redis restarted empty, a FLUSHALL): forgetting all {} cached keys, which "
                        + "reload from the store as they are asked for", store, cache.stats().entries());
                cache.invalidateAll();
            }
        });
    }

    /**
     * Visits the summary of every key, in store order, until {@code visitor} returns {@code false}. Streams: holds
     * one record at a time, so it copes with millions of keys. Weakly consistent, like {@link KeyValueStore#forEach}.
     */
    public void forEachKey(Predicate<KeySummary> visitor) {
        PublicView.forEachKey(store, visitor);
    }

    /** The public details of the key {@code identifier} names, or {@code null}. */
    public KeyDetails details(String identifier) {
        byte[] keyId = resolveBytes(KeyIds.parse(identifier));
        return keyId == null ? null : PublicView.details(store, keyId);
    }

    /**
     * The PEM certificates of the key {@code identifier} names, current first, then earlier ones: each the leaf
     * alone, or with its issuers when {@code chains}. Empty when there is no such key.
     */
    public List<String> certificatesPem(String identifier, boolean chains) {
        byte[] keyId = resolveBytes(KeyIds.parse(identifier));
        return keyId == null ? List.of() : PublicView.certificatesPem(store, keyId, chains);
    }

    /** Visits the PEM of every stored certificate (key ID, PEM), as {@link #certificatesPem} shapes it. */
    public void forEachCertificatePem(boolean chains, BiConsumer<String, String> visitor) {
        PublicView.forEachCertificatePem(store, chains, visitor);
    }

    /** The number of keys, kept up to date by every add and remove. */
    public long count() {
        return writer.count();
    }

    /** Counts the keys by walking the store and corrects the kept count (it can lag after a crash). */
    public long recount() {
        return writer.recount();
    }

    /**
     * A 32-byte secret for {@code purpose}, derived from the KEK: every server sharing a KEK derives the same one,
     * and no purpose's secret reveals the KEK or another purpose's secret.
     */
    public byte[] derivedSecret(String purpose) {
        return kek.derive(purpose);
    }

    /** The store under the repository (the memory governor resizes it when it is an ElasticStore). */
    public KeyValueStore store() {
        return store;
    }

    /** Whether the store can serve lookups now (a Redis store: connected and answering a cached ping). */
    public boolean storeAvailable() {
        return store.available();
    }

    /** The statistics of the store under the repository. */
    public io.elastikey.store.StoreStats storeStats() {
        return store.stats();
    }

    public KeyCacheStats cacheStats() {
        return cache.stats();
    }

    /** Frees the parsed-key cache, and closes the store when this repository opened it ({@link #open}). */
    @Override
    public void close() {
        cache.close();
        if (ownsStore) {
            store.close();
        }
    }

    private LoadedKey load(String id, byte[] identifier) {
        long generation = cache.generation();
        StoredKey stored = read(identifier);
        if (stored == null) {
            cache.unknown();
            return null;
        }
        return cache.load(id, generation, k -> parsed(id, stored));
    }

    /**
     * The parsed key of {@code stored}, asked for by {@code id}: the one already cached under its key ID when there
     * is one (asked for by a name the cache did not hold yet), else unsealed and parsed. Notes which kind of name
     * {@code id} is, for the bulk loads to come ({@link #namesAsked}).
     */
    private LoadedKey parsed(String id, StoredKey stored) {
        String keyId = KeyIds.hex(stored.keyId());
        if (!id.equals(keyId)) {
            noteNameAsked(KeyIds.parse(id), stored);
        }
        LoadedKey cached = cache.peek(keyId);
        return cached != null ? cached : unsealer.unseal(stored.keyId(), stored.record());
    }

    private void noteNameAsked(byte[] name, StoredKey stored) {
        KeyRecord record = PublicView.decodeOrNull(recordKey(stored.keyId()), stored.record());
        for (AliasKind kind : AliasKind.values()) {
            byte[] alias = record == null ? null : record.alias(kind);
            if (alias != null && Arrays.equals(alias, name)) {
                int bit = 1 << kind.code();
                if ((namesAsked.get() & bit) == 0) {
                    namesAsked.accumulateAndGet(bit, (a, b) -> a | b);
                }
            }
        }
    }

    /** The names besides its key ID a bulk load caches a stored key under ({@link #namesAsked}). */
    private List<String> bulkNames(KeyRecord record) {
        int kinds = namesAsked.get() == 0 ? DEFAULT_BULK_NAMES : namesAsked.get();
        List<String> names = new ArrayList<>(2);
        for (AliasKind kind : AliasKind.values()) {
            byte[] alias = (kinds & 1 << kind.code()) == 0 ? null : record.alias(kind);
            if (alias != null && alias.length == KeyIds.SHA1_LENGTH) {
                names.add(KeyIds.hex(alias));
            }
        }
        return names;
    }

    /** A key's ID and its stored record, as read for one find. */
    private record StoredKey(byte[] keyId, byte[] record) {
    }

    /** One store {@code get} for a key ID, two for an alias; {@code null} when nothing is stored under it. */
    private StoredKey read(byte[] identifier) {
        byte[] keyId = identifier;
        byte[] record = identifier.length == KeyIds.SHA256_LENGTH ? store.get(recordKey(identifier)) : null;
        if (record == null) {
            keyId = store.get(aliasKey(identifier));
            record = keyId == null ? null : store.get(recordKey(keyId));
        }
        return record == null ? null : new StoredKey(keyId, record);
    }

    private byte[] resolveBytes(byte[] identifier) {
        if (identifier.length == KeyIds.SHA256_LENGTH && store.contains(recordKey(identifier))) {
            return identifier;
        }
        byte[] keyId = store.get(aliasKey(identifier));
        return keyId != null && store.contains(recordKey(keyId)) ? keyId : null;
    }

    /** Proves the KEK is the store's (or, for a store without one, makes it so) before anything is sealed. */
    private static void checkKek(KeyValueStore store, Sealer sealer, Kek kek) {
        byte[] check = store.get(StoreLayout.KEK_CHECK);
        if (check == null) {
            store.put(StoreLayout.KEK_CHECK, sealer.seal(KEK_CHECK_TEXT, StoreLayout.KEK_CHECK));
            return;
        }
        try {
            byte[] text = sealer.unseal(check, StoreLayout.KEK_CHECK);
            if (MessageDigest.isEqual(text, KEK_CHECK_TEXT)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // falls through to the error below
        }
        throw new KekException("the KEK from " + kek.source() + " is not the key-encryption key this key store "
                + "was sealed with; use the original KEK (a store's keys cannot be opened with another)");
    }
}
