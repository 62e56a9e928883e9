// SealingTest -- keys at rest: no private-key bytes in store files; wrong KEK and tampering are clear errors.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Pem;
import io.elastikey.store.elastic.ElasticStore;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SealingTest {
    static final Kek OTHER_KEK = Kek.fromBase64(Base64.getEncoder().encodeToString(new byte[32]), "other KEK");

    @TempDir
    Path dir;

    @Test
    void noPrivateKeyBytesAppearInAnyStoreFile() throws Exception {
        List<KeyEntry> entries = new ArrayList<>();
        for (KeyType type : KeyType.values()) {
            entries.add(TestKeys.entry(type, type.cliName() + ".example.test"));
        }
        try (ElasticStore store = KeyRepositoryTest.openStore(dir)) {
            KeyRepository keys = new KeyRepository(store, KeyRepositoryTest.KEK, new JdkPrivateKeyParser(), KeyRepositoryTest.CACHE);
            keys.addAll(entries);
            keys.add(TestKeys.entry(KeyType.EC_P256, "again.example.test")); // a record rewritten
        }
        List<byte[]> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.add(Files.readAllBytes(file));
            }
        }
        assertThat(files).isNotEmpty();
        for (KeyEntry entry : entries) {
            byte[] der = entry.privateKey().getEncoded();
            String pem = Pem.writePrivateKey(entry.privateKey());
            List<byte[]> secrets = new ArrayList<>();
            secrets.add(der);
            secrets.add(pem.getBytes(StandardCharsets.US_ASCII));
            secrets.add(Base64.getEncoder().encode(der));
            pem.lines().filter(line -> !line.startsWith("-----"))
                    .forEach(line -> secrets.add(line.getBytes(StandardCharsets.US_ASCII)));
            for (byte[] file : files) {
                for (byte[] secret : secrets) {
                    assertThat(indexOf(file, secret)).as(entry.type().cliName()).isEqualTo(-1);
                }
            }
        }
        // The scan can find things: the public certificate is stored in the clear.
        byte[] certificate = Base64.getEncoder().encode(entries.get(0).certificate().getEncoded());
        assertThat(files.stream().anyMatch(f -> indexOf(f, Arrays.copyOf(certificate, 60)) >= 0)).isTrue();
    }

    @Test
    void aStoreOpenedWithAnotherKekIsRefusedAtOnce() {
        try (ElasticStore store = KeyRepositoryTest.openStore(dir)) {
            new KeyRepository(store, KeyRepositoryTest.KEK, new JdkPrivateKeyParser(), KeyRepositoryTest.CACHE)
                    .add(TestKeys.entry(KeyType.EC_P256, "kek.example.test"));
        }
        try (ElasticStore store = KeyRepositoryTest.openStore(dir)) {
            assertThatThrownBy(() -> new KeyRepository(store, OTHER_KEK, new JdkPrivateKeyParser(), KeyRepositoryTest.CACHE))
                    .isInstanceOf(KekException.class)
                    .hasMessageContaining("other KEK").hasMessageContaining("not the key-encryption key");
        }
    }

    @Test
    void aRecordSealedUnderAnotherKekIsAClearError() {
        MapStore original = new MapStore();
        KeyEntry entry = TestKeys.entry(KeyType.RSA_2048, "moved.example.test");
        String keyId = new KeyRepository(original, KeyRepositoryTest.KEK, new JdkPrivateKeyParser(), KeyRepositoryTest.CACHE).add(entry);
        byte[] recordKey = StoreLayout.recordKey(KeyIds.parse(keyId));

        MapStore elsewhere = new MapStore();
        KeyRepository other = new KeyRepository(elsewhere, OTHER_KEK, new JdkPrivateKeyParser(), KeyRepositoryTest.CACHE);
        elsewhere.put(recordKey, original.get(recordKey));
        assertThatThrownBy(() -> other.find(keyId)).isInstanceOf(SealedRecordException.class)
                .hasMessageContaining(keyId).hasMessageContaining("other KEK")
                .hasMessageContaining("not the one it was sealed with");
    }

    @Test
    void tamperingWithAnyPartOfARecordIsDetected() throws Exception {
        MapStore store = new MapStore();
        KeyRepository keys = new KeyRepository(store, KeyRepositoryTest.KEK, new JdkPrivateKeyParser(), 0);
        KeyEntry entry = TestKeys.entry(KeyType.EC_P256, "tamper.example.test", "gold");
        String keyId = keys.add(entry);
        byte[] recordKey = StoreLayout.recordKey(KeyIds.parse(keyId));
        byte[] original = store.get(recordKey);
        String base64Key = Base64.getEncoder().encodeToString(entry.privateKey().getEncoded());

        // One flipped bit anywhere: the sealed key at the end, a tag, the certificate in the middle.
        int tagOffset = indexOf(original, "gold".getBytes(StandardCharsets.UTF_8));
        for (int offset : new int[] {original.length - 1, original.length - 20, tagOffset, original.length / 2}) {
            byte[] tampered = original.clone();
            tampered[offset] ^= 1;
            store.put(recordKey, tampered);
            assertThatThrownBy(() -> keys.find(keyId)).as("offset " + offset)
                    .isInstanceOf(SealedRecordException.class).hasMessageContaining(keyId)
                    .hasMessageNotContaining(base64Key.substring(0, 16)).hasNoCause();
        }
        store.put(recordKey, Arrays.copyOf(original, 30));
        assertThatThrownBy(() -> keys.find(keyId)).isInstanceOf(SealedRecordException.class)
                .hasMessageContaining("damaged");
        store.put(recordKey, original);
        assertThat(keys.find(keyId)).isNotNull();
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
