// PackedKeyCacheTest -- P-256 keys held packed in the parsed-key cache, and the bulk preload a warm start uses.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.crypto.CryptoOperations;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.hot.HotTier;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Signature;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key server's configuration: P-256 keys signed natively, so they pack ({@link PackedKey}). Skipped where the
 * native signer was not built (P256NativeTest fails where it was built and does not load).
 */
class PackedKeyCacheTest {
    private static CryptoProvider provider;
    private static CryptoOperations operations;

    @TempDir
    Path dir;
    ElasticStore store;
    KeyRepository keys;

    @BeforeAll
    static void nativeSigner() {
        NativeP256 p256 = NativeP256.assumed();
        provider = p256.provider();
        operations = p256.operations();
    }

    @BeforeEach
    void open() {
        store = KeyRepositoryTest.openStore(dir);
        keys = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(), KeyRepositoryTest.CACHE);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aPackedKeyComesBackWithItsNamesTagsAndAWorkingKeyOnEveryHit() throws Exception {
        KeyEntry entry = TestKeys.fresh(KeyType.EC_P256, "packed.example.test", "edge-eu", "tier-1");
        String keyId = keys.add(entry);
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(entry.certificate()));

        LoadedKey miss = keys.find(fingerprint);
        LoadedKey hit = keys.find(fingerprint);

        assertThat(keys.cacheStats().hits()).isEqualTo(1);
        for (LoadedKey key : List.of(miss, hit)) {
            assertThat(key.keyId()).isEqualTo(keyId);
            assertThat(key.type()).isEqualTo(KeyType.EC_P256);
            assertThat(key.tags()).containsExactlyInAnyOrder("edge-eu", "tier-1");
            assertThat(key.names()).containsExactly("packed.example.test");
            assertThat(key.privateKey().getClass().getSimpleName()).isEqualTo("P256ScalarKey");
            byte[] content = "signed content".getBytes(StandardCharsets.US_ASCII);
            byte[] signature = operations.perform(key, SkiRequest.sign(fingerprint,
                    SignatureScheme.ECDSA_SECP256R1_SHA256, content));
            Signature verify = Signature.getInstance("SHA256withECDSA", "SunEC");
            verify.initVerify(entry.certificate().getPublicKey());
            verify.update(content);
            assertThat(verify.verify(signature)).isTrue();
        }
    }

    @Test
    void aPackedEntryWeighsLessThanHalfAProviderKeyAndRsaKeysStayObjects() {
        String ec = keys.add(TestKeys.fresh(KeyType.EC_P256, "light.example.test"));
        keys.find(ec);
        long ecBytes = keys.cacheStats().bytes();
        assertThat(ecBytes).isLessThan((KeyFootprint.ENTRY_OVERHEAD + KeyFootprint.providerKey(KeyType.EC_P256)) / 2);

        String rsa = keys.add(TestKeys.entry(KeyType.RSA_2048, "heavy.example.test"));
        keys.find(rsa);
        assertThat(keys.cacheStats().bytes() - ecBytes).isGreaterThan(KeyFootprint.providerKey(KeyType.RSA_2048));
        assertThat(keys.find(rsa).privateKey().getAlgorithm()).isEqualTo("RSA");
    }

    @Test
    void aRemovedPackedKeyIsNotServedFromTheCache() {
        KeyEntry entry = TestKeys.fresh(KeyType.EC_P256, "removed.example.test");
        String keyId = keys.add(entry);
        String fingerprint = KeyIds.hex(KeyIds.certificateSha1(entry.certificate()));
        assertThat(keys.find(fingerprint)).isNotNull();
        assertThat(keys.find(keyId)).isNotNull();

        assertThat(keys.remove(keyId)).isTrue();

        assertThat(keys.find(fingerprint)).isNull();
        assertThat(keys.find(keyId)).isNull();
    }

    @Test
    void preloadCachesKeysNamedByKeyIdOrAliasAndSkipsTheRest() {
        List<String> identifiers = new ArrayList<>();
        List<String> keyIds = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            KeyEntry entry = TestKeys.fresh(KeyType.EC_P256, "preload-" + i + ".example.test");
            String keyId = keys.add(entry);
            keyIds.add(keyId);
            identifiers.add(i % 2 == 0 ? keyId : KeyIds.hex(KeyIds.certificateSha1(entry.certificate())));
        }
        identifiers.add("not an identifier");
        identifiers.add("00".repeat(32)); // well formed, names nothing
        identifiers.add("11".repeat(20));
        KeyRepository restarted = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(),
                KeyRepositoryTest.CACHE);

        assertThat(restarted.preload(identifiers)).isEqualTo(40);
        assertThat(restarted.preload(identifiers)).as("already cached").isZero();

        for (int i = 0; i < 40; i++) {
            assertThat(restarted.find(identifiers.get(i)).keyId()).isEqualTo(keyIds.get(i));
        }
        KeyCacheStats stats = restarted.cacheStats();
        assertThat(stats.hits()).isEqualTo(40);
        assertThat(stats.misses()).isZero();
        assertThat(stats.entries()).isEqualTo(40);
    }

    @Test
    void preloadStopsOnceThePackedKeysHaveNoRoomLeft() {
        List<String> keyIds = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            keyIds.add(keys.add(TestKeys.fresh(KeyType.EC_P256, "full-" + i + ".example.test")));
        }
        long oneEntry = HotTier.cost(64, 150);
        KeyRepository small = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(), 20 * oneEntry);

        int cached = small.preload(keyIds);

        KeyCacheStats stats = small.cacheStats();
        assertThat(cached).isBetween(10, 59);
        assertThat(stats.entries()).isEqualTo(cached);
        assertThat(stats.evictions()).as("a warm start, hottest first, evicts nothing").isZero();
        assertThat(stats.bytes()).isLessThanOrEqualTo(20 * oneEntry);
        assertThat(small.preload(keyIds)).as("full: nothing more is cached").isZero();
        small.close();
    }

    @Test
    void aWalkOfTheStoreCachesEveryKeyUnderItsCertificateFingerprint() {
        List<KeyEntry> entries = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            entries.add(TestKeys.fresh(KeyType.EC_P256, "walk-" + i + ".example.test"));
        }
        entries.add(TestKeys.entry(KeyType.RSA_2048, "walk-rsa.example.test"));
        List<String> keyIds = entries.stream().map(keys::add).toList();
        KeyRepository restarted = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(),
                KeyRepositoryTest.CACHE);
        String alreadyCached = KeyIds.hex(KeyIds.certificateSha1(entries.get(0).certificate()));
        assertThat(restarted.find(alreadyCached)).isNotNull();
        List<Long> told = new ArrayList<>();

        long cached = restarted.cacheStoredKeys(soFar -> told.add(soFar));

        assertThat(cached).as("all but the one a find had cached").isEqualTo(entries.size() - 1);
        assertThat(told).as("told once per stored key, with a rising count").hasSize(entries.size()).isSorted();
        assertThat(told.get(told.size() - 1)).isEqualTo(cached);
        for (int i = 0; i < entries.size(); i++) {
            String fingerprint = KeyIds.hex(KeyIds.certificateSha1(entries.get(i).certificate()));
            assertThat(restarted.findCached(fingerprint)).as(fingerprint).isNotNull()
                    .extracting(LoadedKey::keyId).isEqualTo(keyIds.get(i));
        }
        assertThat(restarted.cacheStats().entries()).isEqualTo(entries.size());
        assertThat(restarted.cacheStats().misses()).as("the find before the walk").isEqualTo(1);
        restarted.close();
    }

    @Test
    void aWalkStopsWhenTheCacheIsFullOrItIsToldTo() {
        for (int i = 0; i < 60; i++) {
            keys.add(TestKeys.fresh(KeyType.EC_P256, "walk-full-" + i + ".example.test"));
        }
        long oneEntry = HotTier.cost(64, 150);
        KeyRepository small = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(), 20 * oneEntry);
        List<Long> told = new ArrayList<>();

        long cached = small.cacheStoredKeys(soFar -> told.add(soFar));

        assertThat(cached).isBetween(10L, 59L);
        assertThat(told).as("the walk ended at the first key without room").hasSizeLessThan(60);
        assertThat(small.cacheStats().entries()).isEqualTo(cached);
        assertThat(small.cacheStats().evictions()).isZero();
        small.close();

        KeyRepository stopped = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(),
                KeyRepositoryTest.CACHE);
        assertThat(stopped.cacheStoredKeys(soFar -> soFar < 5)).isEqualTo(5);
        assertThat(stopped.cacheStats().entries()).isEqualTo(5);
        stopped.close();
    }

    @Test
    void aFullCacheTakesNoKeyAskedForOnceButTakesOneAskedForOftenInPlaceOfAColderOne() {
        List<String> keyIds = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            keyIds.add(keys.add(TestKeys.fresh(KeyType.EC_P256, "tinylfu-" + i + ".example.test")));
        }
        KeyRepository small = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(),
                20 * HotTier.cost(64, 150));
        for (String id : keyIds.subList(0, 40)) {
            assertThat(small.find(id).keyId()).isEqualTo(id);
        }
        KeyCacheStats filled = small.cacheStats();
        assertThat(filled.entries()).isBetween(10L, 39L);
        assertThat(filled.notAdmitted()).isPositive();

        // A uniform stream of new keys, each asked for once: every one answered, none replaces a cached key.
        for (String id : keyIds.subList(40, 70)) {
            assertThat(small.find(id).keyId()).isEqualTo(id);
        }
        KeyCacheStats uniform = small.cacheStats();
        assertThat(uniform.evictions()).isZero();
        assertThat(uniform.entries()).isEqualTo(filled.entries());
        assertThat(uniform.notAdmitted()).isEqualTo(filled.notAdmitted() + 30);

        // A key asked for again and again earns a place, in place of one asked for once.
        String popular = keyIds.get(75);
        for (int i = 0; i < 6; i++) {
            assertThat(small.find(popular).keyId()).isEqualTo(popular);
        }
        assertThat(small.findCached(popular)).isNotNull();
        assertThat(small.cacheStats().evictions()).isPositive();
        assertThat(small.hottestCached(1)).containsExactly(popular);
        small.close();
    }

    @Test
    void aClosedCacheMissesAndStillAnswersFromTheStore() {
        String keyId = keys.add(TestKeys.fresh(KeyType.EC_P256, "closed.example.test"));
        KeyRepository repository = new KeyRepository(store, KeyRepositoryTest.KEK, provider.keyParser(),
                KeyRepositoryTest.CACHE);
        assertThat(repository.find(keyId)).isNotNull();
        assertThat(repository.findCached(keyId)).isNotNull();

        repository.close();

        assertThat(repository.findCached(keyId)).isNull();
        assertThat(repository.find(keyId).keyId()).isEqualTo(keyId);
        assertThat(repository.cacheStats().entries()).isZero();
    }
}
