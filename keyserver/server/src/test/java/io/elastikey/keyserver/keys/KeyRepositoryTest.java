// KeyRepositoryTest -- keys in a real ElasticStore: every type, every alias, reopen, update, remove, cache.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Pem;
import io.elastikey.store.KeyValueStore;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.Signature;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyRepositoryTest {
    static final Kek KEK = Kek.fromBase64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "test KEK");

    @TempDir
    Path dir;
    ElasticStore store;
    KeyRepository keys;

    static ElasticStore openStore(Path dir) {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(1 << 20).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(1 << 20).build());
    }

    static final long CACHE = 1 << 20;

    @BeforeEach
    void open() {
        store = openStore(dir);
        keys = new KeyRepository(store, KEK, new JdkPrivateKeyParser(), CACHE);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void everyKeyTypeRoundTrips() throws Exception {
        for (KeyType type : KeyType.values()) {
            KeyEntry entry = TestKeys.entry(type, type.cliName() + ".example.test", "t-" + type.cliName());
            String keyId = keys.add(entry);

            LoadedKey loaded = keys.find(keyId);
            assertThat(loaded.keyId()).isEqualTo(keyId).isEqualTo(KeyIds.keyId(entry.certificate().getPublicKey()));
            assertThat(loaded.type()).isEqualTo(type);
            assertThat(loaded.tags()).containsExactly("t-" + type.cliName());
            assertThat(loaded.names()).containsExactly(type.cliName() + ".example.test");
            assertThat(loaded.privateKey().getEncoded()).isEqualTo(entry.privateKey().getEncoded());
            assertSigns(loaded, entry.certificate().getPublicKey());
        }
        assertThat(keys.count()).isEqualTo(KeyType.values().length);
    }

    @Test
    void everyAliasResolvesToTheSameKey() {
        KeyEntry rsa = TestKeys.entry(KeyType.RSA_2048, "rsa.example.test");
        String keyId = keys.add(rsa);
        var publicKey = rsa.certificate().getPublicKey();
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(rsa.certificate()));
        List<String> identifiers = List.of(keyId, keyId.toUpperCase(Locale.ROOT), fingerprint,
                fingerprint.toUpperCase(Locale.ROOT), KeyIds.hex(KeyIds.keylessSki(publicKey)),
                KeyIds.hex(KeyIds.modulusDigest(publicKey)));
        for (String identifier : identifiers) {
            assertThat(keys.find(identifier)).as(identifier).isNotNull()
                    .extracting(LoadedKey::keyId).isEqualTo(keyId);
            assertThat(keys.resolve(identifier)).isEqualTo(keyId);
        }
        assertThat(keys.find(KeyIds.keylessSki(publicKey)).keyId()).isEqualTo(keyId);
        assertThat(keys.find(KeyIds.modulusDigest(publicKey)).keyId()).isEqualTo(keyId);
        assertThat(keys.find(KeyIds.certificateSha1(rsa.certificate())).keyId()).isEqualTo(keyId);
    }

    @Test
    void unknownOrMalformedIdentifiersFindNothing() {
        keys.add(TestKeys.entry(KeyType.EC_P256, "ec.example.test"));
        assertThat(keys.find("0".repeat(40))).isNull();
        assertThat(keys.find("ab".repeat(32))).isNull();
        assertThat(keys.find("not hex")).isNull();
        assertThat(keys.find((String) null)).isNull();
        assertThat(keys.find(new byte[7])).isNull();
        assertThat(keys.resolve("0".repeat(64))).isNull();
        assertThatThrownBy(() -> keys.resolve("xyz")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyKeyIsThereAfterReopening() {
        List<String> ids = new ArrayList<>();
        for (KeyType type : KeyType.values()) {
            ids.add(keys.add(TestKeys.entry(type, type.cliName() + ".example.test")));
        }
        List<KeyEntry> bulk = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            bulk.add(TestKeys.fresh(KeyType.EC_P256, "key-" + i + ".example.test"));
        }
        ids.addAll(keys.addAll(bulk));
        store.close();

        store = openStore(dir);
        keys = new KeyRepository(store, KEK, new JdkPrivateKeyParser(), CACHE);
        assertThat(keys.count()).isEqualTo(ids.size());
        for (String id : ids) {
            assertThat(keys.find(id)).as(id).isNotNull();
        }
        assertThat(keys.find(ids.get(ids.size() - 1)).names()).containsExactly("key-199.example.test");
    }

    @Test
    void addingTheSameKeyAgainUpdatesIt() {
        KeyEntry first = TestKeys.entry(KeyType.EC_P384, "first.example.test", "old");
        String keyId = keys.add(first);
        assertThat(keys.add(TestKeys.entry(TestKeys.pair(KeyType.EC_P384), "first.example.test"))).isEqualTo(keyId);
        KeyEntry renewed = TestKeys.entry(KeyType.EC_P384, "second.example.test", "new");
        keys.add(renewed);

        assertThat(keys.count()).isEqualTo(1);
        LoadedKey loaded = keys.find(keyId);
        assertThat(loaded.tags()).containsExactly("new");
        assertThat(keys.certificatesPem(keyId, false).get(0)).isEqualTo(Pem.writeCertificate(renewed.certificate()));
        assertThat(loaded.names()).containsExactly("second.example.test");
        // The earlier certificate still names the key, and the key lists three certificates.
        assertThat(keys.find(KeyIds.hex(KeyIds.certificateSha1(first.certificate()))).keyId()).isEqualTo(keyId);
        assertThat(keys.details(keyId).summary().certificates()).isEqualTo(3);
        assertThat(keys.certificatesPem(keyId, false)).hasSize(3);
        // Adding the earlier certificate again changes the tags only.
        keys.add(first);
        assertThat(keys.details(keyId).summary().certificates()).isEqualTo(3);
        assertThat(keys.find(keyId).tags()).containsExactly("old");
    }

    @Test
    void oneBatchMayCertifyOneKeyManyTimes() {
        List<KeyEntry> pooled = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            pooled.add(TestKeys.entry(KeyType.RSA_2048, "pool-" + i + ".example.test"));
        }
        List<String> ids = keys.addAll(pooled);
        assertThat(Set.copyOf(ids)).hasSize(1);
        assertThat(keys.count()).isEqualTo(1);
        for (KeyEntry entry : pooled) {
            assertThat(keys.find(KeyIds.certificateSha1(entry.certificate()))).isNotNull();
        }
        AtomicInteger exported = new AtomicInteger();
        keys.forEachCertificatePem(false, (id, pem) -> exported.incrementAndGet());
        assertThat(exported).hasValue(10);
        assertThat(keys.find(ids.get(0)).names()).containsExactly("pool-9.example.test");
    }

    @Test
    void everyKeyAWriteChangesIsToldOnceAsAddedUpdatedOrRemovedAndNothingElseIs() {
        List<String> told = new ArrayList<>();
        KeyChange.Listener changes = (change, keyId) -> told.add(change.label() + " " + keyId);
        KeyPair storedPair = KeyType.EC_P256.generate();
        KeyPair addedPair = KeyType.RSA_2048.generate();
        String storedId = keys.add(TestKeys.entry(storedPair, "stored.example.test"));
        KeyEntry added = TestKeys.entry(addedPair, "added.example.test");

        keys.addAll(List.of(added, TestKeys.entry(storedPair, "renewed.example.test"),
                TestKeys.entry(addedPair, "added-again.example.test")), changes);

        assertThat(told).containsExactly("ADD-KEY " + added.keyId(), "UPDATE-KEY " + storedId);
        told.clear();
        assertThat(keys.remove(KeyIds.hex(KeyIds.certificateSha1(added.certificate())), changes)).isTrue();
        assertThat(keys.remove(added.keyId(), changes)).isFalse();
        assertThat(told).containsExactly("REMOVE-KEY " + added.keyId());
    }

    @Test
    void removeRemovesTheRecordAndEveryAlias() {
        long emptySize = store.size();
        KeyEntry rsa = TestKeys.entry(KeyType.RSA_3072, "gone.example.test");
        String keyId = keys.add(rsa);
        keys.add(TestKeys.entry(KeyType.RSA_3072, "gone-too.example.test"));
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(rsa.certificate()));
        assertThat(keys.find(fingerprint)).isNotNull(); // now cached under the alias too

        assertThat(keys.remove(fingerprint.toUpperCase(Locale.ROOT))).isTrue();

        var publicKey = rsa.certificate().getPublicKey();
        for (String identifier : List.of(keyId, fingerprint, KeyIds.hex(KeyIds.keylessSki(publicKey)),
                KeyIds.hex(KeyIds.modulusDigest(publicKey)))) {
            assertThat(keys.find(identifier)).as(identifier).isNull();
        }
        assertThat(store.size()).isEqualTo(emptySize);
        assertThat(keys.count()).isZero();
        assertThat(keys.remove(keyId)).isFalse();
    }

    @Test
    void listingStreamsSummariesAndStopsWhenAsked() {
        List<KeyEntry> bulk = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            bulk.add(TestKeys.fresh(KeyType.ED25519, "list-" + i + ".example.test", "bulk"));
        }
        keys.addAll(bulk);
        List<KeySummary> all = new ArrayList<>();
        keys.forEachKey(all::add);
        assertThat(all).hasSize(50).allSatisfy(s -> {
            assertThat(s.type()).isEqualTo(KeyType.ED25519);
            assertThat(s.tags()).containsExactly("bulk");
            assertThat(s.modulusDigest()).isNull();
            assertThat(s.names()).singleElement().asString().startsWith("list-");
        });
        AtomicInteger seen = new AtomicInteger();
        keys.forEachKey(s -> seen.incrementAndGet() < 7);
        assertThat(seen).hasValue(7);
        assertThat(keys.recount()).isEqualTo(50);
    }

    @Test
    void cacheKeepsParsedKeysAndCountsHits() {
        String keyId = keys.add(TestKeys.entry(KeyType.EC_P256, "cached.example.test"));
        LoadedKey first = keys.find(keyId);
        assertThat(keys.find(keyId)).isSameAs(first);
        KeyCacheStats stats = keys.cacheStats();
        assertThat(stats.hits()).isEqualTo(1);
        assertThat(stats.misses()).isEqualTo(1);
        assertThat(stats.entries()).isEqualTo(1);
        assertThat(stats.evictions()).isZero();
        assertThat(stats.bytes()).isBetween((long) KeyFootprint.providerKey(KeyType.EC_P256), 2_000L);
        assertThat(stats.capacityBytes()).isEqualTo(CACHE);
    }

    @Test
    void cacheIsBoundedByMemoryNotByCount() {
        KeyRepository small = new KeyRepository(store, KEK, new JdkPrivateKeyParser(), 8_000);
        List<String> ids = addEcKeys(30, "bounded");
        ids.forEach(small::find);
        ids.forEach(small::find);
        KeyCacheStats stats = small.cacheStats();
        assertThat(stats.bytes()).isPositive().isLessThanOrEqualTo(8_000);
        assertThat(stats.entries()).isBetween(1L, 8_000L / KeyFootprint.providerKey(KeyType.EC_P256));
        assertThat(stats.evictions()).isPositive();
        assertThat(stats.hits() + stats.misses()).isEqualTo(60);
        // One RSA-2048 key weighs as much as several EC keys.
        assertThat(KeyFootprint.providerKey(KeyType.RSA_2048)).isGreaterThan(5 * KeyFootprint.providerKey(
                KeyType.EC_P256));
    }

    @Test
    void aFullCacheCachesFewMissesButAnswersEveryOneWithItsOwnKey() {
        KeyRepository small = new KeyRepository(store, KEK, new JdkPrivateKeyParser(), 8_000);
        List<String> ids = addEcKeys(200, "full");
        for (String id : ids.subList(0, 100)) {
            assertThat(small.find(id).keyId()).isEqualTo(id);
        }
        // Caffeine evicts in its maintenance, which may run later on another thread; cacheStats() runs it now, so
        // the cache knows it is full before the second hundred misses.
        assertThat(small.cacheStats().evictions()).isPositive();
        long before = small.cacheStats().notAdmitted();
        for (String id : ids.subList(100, 200)) {
            assertThat(small.find(id).keyId()).isEqualTo(id);
        }
        KeyCacheStats stats = small.cacheStats();
        long dropped = stats.notAdmitted() - before;
        assertThat(stats.misses()).isEqualTo(200);
        // Once full, about one miss in eight is offered a place (87.5 of 100 dropped on average, 3.3 the deviation).
        assertThat(dropped).isBetween(60L, 99L);
        assertThat(stats.bytes()).isLessThanOrEqualTo(8_000);

        // RSA keys cost ten times more to load than they cost to keep a while: a full cache still takes each one.
        long beforeRsa = small.cacheStats().notAdmitted();
        for (int i = 0; i < 4; i++) {
            String rsa = keys.add(TestKeys.fresh(KeyType.RSA_2048, "full-rsa-" + i + ".example.test"));
            assertThat(small.find(rsa).keyId()).isEqualTo(rsa);
        }
        assertThat(small.cacheStats().notAdmitted()).isEqualTo(beforeRsa);
    }

    /** Adds {@code count} new EC P-256 keys named {@code <prefix>-<i>.example.test}; returns their key IDs. */
    private List<String> addEcKeys(int count, String prefix) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(keys.add(TestKeys.fresh(KeyType.EC_P256, prefix + "-" + i + ".example.test")));
        }
        return ids;
    }

    @Test
    void aKeyCachedUnderAFingerprintIsForgottenWhenUpdatedOrRemoved() {
        KeyEntry entry = TestKeys.entry(KeyType.EC_P256, "alias-cached.example.test", "before");
        String keyId = keys.add(entry);
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(entry.certificate())).toUpperCase();
        assertThat(keys.find(fingerprint).tags()).containsExactly("before");
        assertThat(keys.findCached(fingerprint)).isNotNull();

        keys.add(TestKeys.entry(TestKeys.pair(KeyType.EC_P256), "alias-cached.example.test", "after"));
        assertThat(keys.findCached(fingerprint)).isNull();
        assertThat(keys.find(fingerprint).tags()).containsExactly("after");

        assertThat(keys.remove(keyId)).isTrue();
        assertThat(keys.findCached(fingerprint)).isNull();
        assertThat(keys.find(fingerprint)).isNull();
    }

    @Test
    void aKeyIsCachedOnceAndEachOfItsNamesPointsAtIt() {
        KeyEntry entry = TestKeys.entry(KeyType.EC_P256, "walked.example.test");
        String keyId = keys.add(entry);
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(entry.certificate()));
        String keylessSki = KeyIds.hex(KeyIds.keylessSki(entry.certificate().getPublicKey()));
        assertThat(keys.cacheStoredKeys(cached -> true)).isEqualTo(1);
        LoadedKey walked = keys.findCached(keyId);
        assertThat(walked).as("the walk caches under the key ID").isNotNull();
        assertThat(keys.findCached(fingerprint)).as("and the certificate SHA-1 SKI clients send").isSameAs(walked);
        assertThat(keys.findCached(keylessSki)).as("no client has asked by SKI yet").isNull();
        assertThat(keys.cacheStats().names()).isEqualTo(1);

        // The provider's key objects stay themselves in the cache: the same object means it was not unsealed again.
        assertThat(keys.find(keylessSki, (id, tags, names) -> true).key()).isSameAs(walked);
        assertThat(keys.findCached(keylessSki)).isSameAs(walked);
        KeyCacheStats stats = keys.cacheStats();
        assertThat(stats.entries()).as("one key, whatever it is named by").isEqualTo(1);
        assertThat(stats.names()).isEqualTo(2);

        // Removed, it is gone under every name.
        assertThat(keys.remove(keyId)).isTrue();
        for (String name : List.of(keyId, fingerprint, keylessSki)) {
            assertThat(keys.findCached(name)).as(name).isNull();
            assertThat(keys.find(name)).as(name).isNull();
        }
        assertThat(keys.cacheStats().names()).isZero();
    }

    @Test
    void aWalkNamesKeysByEveryKindOfNameClientsHaveAskedBy() {
        KeyEntry first = TestKeys.entry(KeyType.EC_P256, "asked.example.test");
        String firstId = keys.add(first);
        assertThat(keys.find(KeyIds.hex(KeyIds.keylessSki(first.certificate().getPublicKey())))).isNotNull();
        KeyEntry second = TestKeys.entry(KeyType.EC_P256, "walked-after.example.test");
        String secondId = keys.add(second);

        keys.cacheStoredKeys(cached -> true);

        String ski = KeyIds.hex(KeyIds.keylessSki(second.certificate().getPublicKey()));
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(second.certificate()));
        assertThat(keys.findCached(ski)).as("a Keyless client asked by SKI before the walk").isNotNull();
        assertThat(keys.findCached(ski).keyId()).isEqualTo(secondId);
        assertThat(keys.findCached(fingerprint)).as("no SKI client has asked by certificate SHA-1").isNull();
        assertThat(keys.findCached(firstId)).isNotNull();
    }

    @Test
    void aNameOfAKeyTheCacheLostIsAMissThatLoadsTheKeyAgain() throws Exception {
        KeyEntry entry = TestKeys.entry(KeyType.EC_P256, "lost.example.test");
        String keyId = keys.add(entry);
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(entry.certificate()));
        LoadedKey loaded = new KeyRepository(store, KEK, new JdkPrivateKeyParser(), 0).find(keyId);
        KeyCache cache = new KeyCache(CACHE, new JdkPrivateKeyParser());
        assertThat(cache.load(fingerprint, cache.generation(), name -> loaded)).isSameAs(loaded);
        assertThat(cache.lookup(fingerprint)).isSameAs(loaded);
        cache.invalidate(List.of(keyId)); // the key leaves, as an eviction takes it; its name stays behind

        assertThat(cache.lookup(fingerprint)).as("a name whose key is gone finds nothing").isNull();
        assertThat(cache.load(fingerprint, cache.generation(), name -> loaded)).isSameAs(loaded);
        assertThat(cache.lookup(keyId)).isSameAs(loaded);
        assertThat(cache.stats().entries()).isEqualTo(1);
        assertThat(cache.stats().names()).isEqualTo(1);
        cache.close();
        assertSigns(loaded, entry.certificate().getPublicKey());
    }

    /** A capacity sized for packed P-256 keys off the heap must not let key objects fill the heap. */
    @Test
    void keyObjectsTakeNoMoreThanTheirShareOfTheHeap() throws Exception {
        List<LoadedKey> loaded = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String keyId = keys.add(TestKeys.fresh(KeyType.RSA_2048, "heap-" + i + ".example.test"));
            ids.add(keyId);
            loaded.add(new KeyRepository(store, KEK, new JdkPrivateKeyParser(), 0).find(keyId));
        }
        long oneKey = KeyFootprint.of(ids.get(0), loaded.get(0));
        long capacity = 64L << 20; // room for all six beside the names table's first reservation
        KeyCache cache = new KeyCache(capacity, new JdkPrivateKeyParser(), 3 * oneKey + oneKey / 2);
        for (int i = 0; i < ids.size(); i++) {
            LoadedKey key = loaded.get(i);
            assertThat(cache.load(ids.get(i), cache.generation(), name -> key)).isSameAs(key);
        }

        // Caffeine's admission decides which stay, and may keep fewer than fit.
        assertThat(cache.stats().entries()).as("RSA key objects cached under a limit of three and a half")
                .isBetween(1L, 3L);
        cache.close();
    }

    @Test
    void aRemovalForgetsTheKeyUnderEveryIdentifierItWasCachedByAndNoOtherKey() {
        KeyEntry gone = TestKeys.entry(KeyType.EC_P256, "every-name.example.test");
        String goneId = keys.add(gone);
        List<String> others = addEcKeys(50, "stays");
        var publicKey = gone.certificate().getPublicKey();
        List<String> names = List.of(goneId, KeyIds.hex(KeyIds.certificateSha1(gone.certificate())),
                KeyIds.hex(KeyIds.keylessSki(publicKey)));
        names.forEach(name -> assertThat(keys.find(name)).as(name).isNotNull());
        others.forEach(keys::find);
        names.forEach(name -> assertThat(keys.findCached(name)).as(name).isNotNull());

        assertThat(keys.remove(goneId)).isTrue();

        names.forEach(name -> assertThat(keys.findCached(name)).as(name).isNull());
        names.forEach(name -> assertThat(keys.find(name)).as(name).isNull());
        others.forEach(other -> assertThat(keys.findCached(other)).as(other).isNotNull());
    }

    @Test
    void cacheSizeZeroUnsealsOnEveryFind() throws Exception {
        KeyRepository uncached = new KeyRepository(store, KEK, new JdkPrivateKeyParser(), 0);
        KeyEntry entry = TestKeys.entry(KeyType.EC_P256, "uncached.example.test");
        String keyId = uncached.add(entry);
        LoadedKey first = uncached.find(keyId);
        LoadedKey second = uncached.find(keyId);
        assertThat(second).isNotSameAs(first);
        assertThat(second.privateKey()).isEqualTo(first.privateKey());
        assertSigns(second, entry.certificate().getPublicKey());
        assertThat(uncached.cacheStats()).isEqualTo(new KeyCacheStats(0, 2, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void worksOnAnyKeyValueStore() {
        try (KeyValueStore map = new MapStore()) {
            KeyRepository onMap = new KeyRepository(map, KEK, new JdkPrivateKeyParser(), CACHE);
            KeyEntry entry = TestKeys.entry(KeyType.ED25519, "map.example.test");
            String keyId = onMap.add(entry);
            assertThat(onMap.find(KeyIds.hex(KeyIds.certificateSha1(entry.certificate()))).keyId()).isEqualTo(keyId);
            assertThat(onMap.remove(keyId)).isTrue();
            assertThat(map.size()).isEqualTo(2); // the KEK check and the count
        }
    }

    @Test
    void anAliasNamingAnotherKeyIsRefusedAndNothingIsWritten() {
        KeyEntry victim = TestKeys.entry(KeyType.EC_P256, "victim.example.test");
        KeyEntry other = TestKeys.fresh(KeyType.EC_P256, "other.example.test");
        // As if a digest of the new key collided with one of another key's.
        store.put(StoreLayout.aliasKey(KeyIds.keylessSki(other.certificate().getPublicKey())),
                KeyIds.spkiSha256(victim.certificate().getPublicKey()));
        long size = store.size();
        assertThatThrownBy(() -> keys.addAll(List.of(victim, other))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Keyless SKI").hasMessageContaining("already names key");
        assertThat(store.size()).isEqualTo(size);
        assertThat(keys.count()).isZero();
    }

    static void assertSigns(LoadedKey key, PublicKey publicKey) throws Exception {
        Signature signer = Signature.getInstance(key.type().signatureAlgorithm());
        signer.initSign(key.privateKey());
        signer.update(new byte[] {1, 2, 3});
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(key.type().signatureAlgorithm());
        verifier.initVerify(publicKey);
        verifier.update(new byte[] {1, 2, 3});
        assertThat(verifier.verify(signature)).as(key.type().cliName()).isTrue();
    }
}
