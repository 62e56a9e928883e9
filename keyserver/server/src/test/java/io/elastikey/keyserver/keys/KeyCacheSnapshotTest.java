// KeyCacheSnapshotTest -- the sealed cache snapshot: read back whole, and trusted only for the store it was written for.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.store.elastic.ElasticStore;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repository over a real ElasticStore saves its cache's packed keys and a second repository over the reopened
 * store reads them back, as a key server's stop and next start do. Skipped where the native P-256 signer was not
 * built (only its keys pack).
 */
class KeyCacheSnapshotTest {
    private static final int KEYS = 40;
    private static NativeP256 p256;

    @TempDir
    Path dir;
    private ElasticStore store;
    private KeyRepository keys;
    private final List<KeyEntry> entries = new ArrayList<>();
    private final Map<String, LoadedKey> loadedFromTheStore = new HashMap<>();

    @BeforeEach
    void addAndUseKeys() {
        p256 = NativeP256.assumed();
        open(dir.resolve("store"), KeyRepositoryTest.KEK, KeyRepositoryTest.CACHE);
        for (int i = 0; i < KEYS; i++) {
            entries.add(TestKeys.fresh(KeyType.EC_P256, "snap-" + i + ".example.test", "tier-" + i % 3));
        }
        keys.addAll(entries);
        for (KeyEntry entry : entries) {
            loadedFromTheStore.put(fingerprint(entry), keys.find(fingerprint(entry)));
        }
    }

    @AfterEach
    void close() {
        keys.close();
        store.close();
    }

    @Test
    void aRestartOverTheSameStoreTakesEveryKeyBackWithoutReadingTheStore() throws Exception {
        Path file = dir.resolve("key-cache.sealed");
        assertThat(keys.saveCacheSnapshot(file)).isEqualTo(KEYS);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(dir.resolve("key-cache.sealed.tmp")).doesNotExist();
        byte[] bytes = Files.readAllBytes(file);
        for (KeyEntry entry : entries) {
            assertThat(indexOf(bytes, scalar(entry))).as("a private scalar in the clear").isNegative();
            assertThat(indexOf(bytes, fingerprint(entry).getBytes(StandardCharsets.US_ASCII))).as("an identifier")
                    .isNegative();
        }

        reopen(KeyRepositoryTest.CACHE);
        KeyCacheSnapshot.Loaded loaded = keys.loadCacheSnapshot(file);

        assertThat(loaded).isEqualTo(new KeyCacheSnapshot.Loaded(KEYS, null));
        assertThat(file).as("used once").doesNotExist();
        assertThat(keys.cacheStats().entries()).isEqualTo(KEYS);
        for (KeyEntry entry : entries) {
            LoadedKey key = keys.find(fingerprint(entry));
            LoadedKey before = loadedFromTheStore.get(fingerprint(entry));
            assertThat(key.keyId()).isEqualTo(entry.keyId());
            assertThat(key.names()).isEqualTo(before.names()).isNotEmpty();
            assertThat(key.tags()).isEqualTo(before.tags()).isEqualTo(entry.tags());
            assertSigns(entry, key);
        }
        assertThat(keys.cacheStats().misses()).as("every key a hit").isZero();
    }

    @Test
    void aStoreWrittenSinceTheStopGetsNothingFromTheSnapshot() throws Exception {
        Path file = dir.resolve("key-cache.sealed");
        keys.saveCacheSnapshot(file);
        KeyEntry removed = entries.get(7);
        reopen(KeyRepositoryTest.CACHE);
        assertThat(keys.remove(fingerprint(removed))).isTrue(); // what keys remove does while the server is stopped
        reopen(KeyRepositoryTest.CACHE);

        KeyCacheSnapshot.Loaded loaded = keys.loadCacheSnapshot(file);

        assertThat(loaded.cached()).isZero();
        assertThat(loaded.shortOf()).startsWith("the key store changed since it was written");
        assertThat(file).doesNotExist();
        assertThat(keys.find(fingerprint(removed))).as("a removed key stays removed").isNull();
        assertSigns(entries.get(8), keys.find(fingerprint(entries.get(8))));
    }

    @Test
    void aSnapshotUnderAnotherKekDoesNotOpen() throws Exception {
        Path file = dir.resolve("key-cache.sealed");
        keys.saveCacheSnapshot(file);
        keys.close();
        store.close();
        // A second store built the same way under another KEK: the same write sequence and count, another key.
        open(dir.resolve("other"), Kek.fromBase64("HyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4=", "other KEK"),
                KeyRepositoryTest.CACHE);
        keys.addAll(entries);

        KeyCacheSnapshot.Loaded loaded = keys.loadCacheSnapshot(file);

        assertThat(loaded).isEqualTo(new KeyCacheSnapshot.Loaded(0, "chunk 0 does not open (another KEK, or damage)"));
        assertThat(keys.cacheStats().entries()).isZero();
    }

    @Test
    void aDamagedChunkOrACutFileKeepsOnlyTheChunksBeforeIt() throws Exception {
        Path file = dir.resolve("key-cache.sealed");
        assertThat(keys.saveCacheSnapshot(file, 600)).isEqualTo(KEYS); // some four entries a chunk
        byte[] whole = Files.readAllBytes(file);
        List<Integer> chunks = chunkStarts(whole);
        assertThat(chunks).hasSizeGreaterThan(5);

        byte[] flipped = whole.clone();
        flipped[chunks.get(2) + 40] ^= 1;
        Files.write(file, flipped);
        reopen(KeyRepositoryTest.CACHE);
        KeyCacheSnapshot.Loaded damaged = keys.loadCacheSnapshot(file);
        assertThat(damaged.shortOf()).isEqualTo("chunk 2 does not open (another KEK, or damage)");
        assertThat(damaged.cached()).isPositive().isEqualTo(keys.cacheStats().entries()).isLessThan(KEYS);

        keys.saveCacheSnapshot(file, 600);
        // cut in the middle: the last chunks hold the keys' other names, the first ones their packed keys
        Files.write(file, Arrays.copyOf(whole, chunks.get(chunks.size() / 2)));
        reopen(KeyRepositoryTest.CACHE);
        KeyCacheSnapshot.Loaded cut = keys.loadCacheSnapshot(file);
        assertThat(cut.shortOf()).isEqualTo("the file ends before its last chunk");
        assertThat(cut.cached()).isPositive().isLessThan(KEYS);
        for (KeyEntry entry : entries) {
            assertSigns(entry, keys.find(fingerprint(entry))); // the rest from the store, as without a snapshot
        }
    }

    @Test
    void aSmallerCacheTakesTheSnapshotUntilItIsFull() throws Exception {
        Path file = dir.resolve("key-cache.sealed");
        keys.saveCacheSnapshot(file);
        reopen(4096);

        KeyCacheSnapshot.Loaded loaded = keys.loadCacheSnapshot(file);

        assertThat(loaded.shortOf()).isNull();
        assertThat(loaded.cached()).isPositive().isLessThan(KEYS).isEqualTo(keys.cacheStats().entries());
    }

    @Test
    void notAFileOfOursIsRefusedAndRemoved() throws Exception {
        Path file = dir.resolve("key-cache.sealed");
        Files.writeString(file, "hello, this is not a snapshot at all");
        assertThat(keys.loadCacheSnapshot(file)).isEqualTo(
                new KeyCacheSnapshot.Loaded(0, "not a version 1 key cache snapshot"));
        assertThat(file).doesNotExist();
        assertThat(keys.loadCacheSnapshot(file)).isEqualTo(new KeyCacheSnapshot.Loaded(0, "no snapshot"));
    }

    private void open(Path storeDir, Kek kek, long cache) {
        store = KeyRepositoryTest.openStore(storeDir);
        keys = new KeyRepository(store, kek, p256.provider().keyParser(), cache);
    }

    private void reopen(long cache) {
        keys.close();
        store.close();
        open(dir.resolve("store"), KeyRepositoryTest.KEK, cache);
    }

    private static void assertSigns(KeyEntry entry, LoadedKey key) throws Exception {
        byte[] content = "signed content".getBytes(StandardCharsets.US_ASCII);
        byte[] signature = p256.operations().perform(key, SkiRequest.sign(fingerprint(entry),
                SignatureScheme.ECDSA_SECP256R1_SHA256, content));
        Signature verify = Signature.getInstance("SHA256withECDSA", "SunEC");
        verify.initVerify(entry.certificate().getPublicKey());
        verify.update(content);
        assertThat(verify.verify(signature)).isTrue();
    }

    private static String fingerprint(KeyEntry entry) {
        return KeyIds.hex(KeyIds.certificateSha1(entry.certificate()));
    }

    private static byte[] scalar(KeyEntry entry) {
        byte[] s = ((ECPrivateKey) entry.privateKey()).getS().toByteArray();
        return s.length > 32 ? Arrays.copyOfRange(s, s.length - 32, s.length) : s;
    }

    /** Where each chunk of a snapshot file starts: after the header, each a flag, a length and that many bytes. */
    private static List<Integer> chunkStarts(byte[] file) {
        List<Integer> starts = new ArrayList<>();
        for (int at = KeyCacheSnapshot.HEADER_LENGTH; at < file.length; ) {
            starts.add(at);
            int length = java.nio.ByteBuffer.wrap(file, at + 1, 4).getInt();
            at += 5 + length;
        }
        return starts;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }
}
