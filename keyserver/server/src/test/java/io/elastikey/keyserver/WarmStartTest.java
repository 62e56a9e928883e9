package io.elastikey.keyserver;

import static io.elastikey.keyserver.SkiEndToEndTest.base64;
import static io.elastikey.keyserver.SkiEndToEndTest.output;
import static io.elastikey.keyserver.SkiEndToEndTest.randomBytes;
import static io.elastikey.keyserver.SkiEndToEndTest.verifyEcdhe;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.keyserver.cli.KeysCommand;
import io.elastikey.keyserver.cli.Progress;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.warmup.KeyWarmup;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.ref.WeakReference;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A key server restarted over keys on disk: it exercises its path before it says ready, saves its packed keys
 * (sealed) and the identifiers of its parsed keys when it stops, reads the packed keys back before it says ready and
 * loads the rest while it already answers, every answer correct meanwhile; with no hot-key file to follow it loads
 * every stored key instead.
 */
class WarmStartTest {
    private static final int KEYS = 120;
    private static final int USED = 60;

    @TempDir
    Path dir;
    private KeyServerFixture fixture;

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aFirstStartWithNoHotKeyFileLoadsEveryStoredKeyWhileItAnswers() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of("warmup.exercise", "0s"));
        List<TestKey> keys = addEcKeys(KEYS);
        assertThat(dir.resolve("hot-keys")).doesNotExist();
        fixture.startServing();
        assertReady();
        HttpClient client = fixture.client(HttpClient.Version.HTTP_2);
        signAll(client, keys.subList(KEYS - 10, KEYS)); // while the walk may still run: every answer verifies

        awaitReloaded(KEYS);
        assertThat(fixture.metrics().value("elastikey_keys_cache_entries")).as("every key, not just the ten asked for")
                .isEqualTo(KEYS);
        double misses = fixture.metrics().value("elastikey_keys_cache_misses_total");
        signAll(client, keys);
        assertThat(fixture.metrics().value("elastikey_keys_cache_misses_total"))
                .as("every key cached under the fingerprint clients name it by").isEqualTo(misses);
        fixture.stop();

        List<String> saved = Files.readAllLines(dir.resolve("hot-keys")).stream().filter(l -> !l.startsWith("#"))
                .toList();
        assertThat(saved).as("the key IDs the cache holds its keys under")
                .containsExactlyInAnyOrderElementsOf(keys.stream().map(WarmStartTest::keyId).toList());
    }

    @Test
    void aRestartReloadsTheKeysInUseAndAnswersCorrectlyWhileItDoes() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of("warmup.exercise", "500ms"));
        List<TestKey> keys = addEcKeys(KEYS);
        // A hot-key file naming the keys in use, so the first start loads those and not every stored key.
        Files.write(dir.resolve("hot-keys"), keys.subList(0, USED).stream().map(WarmStartTest::fingerprint).toList());
        fixture.startServing();
        assertReady();
        HttpClient client = fixture.client(HttpClient.Version.HTTP_2);
        for (TestKey key : keys.subList(0, USED)) {
            assertSigns(client, key);
        }
        assertThat(fixture.metrics().value("elastikey_keys_cache_entries")).isEqualTo(USED);
        fixture.stop();

        Path hotKeys = dir.resolve("hot-keys");
        List<String> saved = Files.readAllLines(hotKeys).stream().filter(l -> !l.startsWith("#")).toList();
        assertThat(saved).hasSize(USED).containsExactlyInAnyOrderElementsOf(
                keys.subList(0, USED).stream().map(WarmStartTest::keyId).toList());

        assertThat(dir.resolve("key-cache.sealed")).as("the packed keys, sealed").exists();

        fixture.startServing();
        assertReady();
        assertThat(fixture.metrics().value("elastikey_keys_snapshot_loaded")).as("read back before ready")
                .isEqualTo(USED);
        assertThat(dir.resolve("key-cache.sealed")).as("used once").doesNotExist();
        HttpClient restarted = fixture.client(HttpClient.Version.HTTP_2);
        signAll(restarted, keys.subList(0, USED));
        assertThat(fixture.metrics().value("elastikey_keys_cache_misses_total")).as("the keys in use all hit")
                .isZero();
        // Every key, used before or not, while the reload may still run: all answers verify.
        signAll(restarted, keys);
        awaitReloaded(USED);
        assertThat(fixture.metrics().value("elastikey_keys_cache_entries")).isGreaterThanOrEqualTo(USED);
    }

    /**
     * {@code keys generate} ends as a stop does, with the sealed snapshot and the hot-key list of a server that held
     * every key: the first start after it has them all cached before it is ready, and no request misses.
     */
    @Test
    void keysGenerateLeavesTheFirstStartEveryKeyCached() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        int count = 30;
        StringWriter out = new StringWriter();
        CommandLine keys = KeysCommand.commandLine(Progress.NONE);
        keys.setOut(new PrintWriter(out, true));
        String[] common = {"--data", dir.toString(), "--set", "keys.expected=4096"};
        assertThat(keys.execute(concat(new String[] {"generate"}, common, "--count", "" + count, "--type", "ec256")))
                .as(out.toString()).isZero();
        assertThat(out.toString()).contains("prepared the key server's next start: " + count + " keys cached (a walk "
                + "of the " + count + " stored keys)");
        assertThat(dir.resolve("key-cache.sealed")).exists();
        Path exported = dir.resolve("public.pem");
        assertThat(keys.execute(concat(new String[] {"export-public"}, common, "--out", exported.toString())))
                .isZero();
        List<TestKey> generated = PemFiles.readCertificates(exported).stream()
                .map(c -> new TestKey(KeyType.EC_P256, new KeyPair(c.getPublicKey(), null), c)).toList();

        fixture.startServing();
        assertReady();
        assertThat(fixture.metrics().value("elastikey_keys_snapshot_loaded")).isEqualTo(count);
        signAll(fixture.client(HttpClient.Version.HTTP_2), generated);
        assertThat(fixture.metrics().value("elastikey_keys_cache_misses_total")).isZero();
    }

    /**
     * Before it is ready, a start signs through its own request pipeline (TLS, HTTP/2 and HTTP/1.1, JSON) on a
     * listener of its own with a throwaway PKI: the signatures happen, no client request is counted or audited, and
     * the real endpoint then answers as usual.
     */
    @Test
    void aStartSendsItselfRequestsThroughItsPipelineBeforeItIsReady() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of("warmup.requests", "1s"));
        List<TestKey> keys = addEcKeys(4);
        Files.write(dir.resolve("hot-keys"), keys.stream().map(WarmStartTest::fingerprint).toList());
        fixture.startServing();
        assertReady();
        ScrapedMetrics metrics = fixture.metrics();
        double signatures = metrics.find("elastikey_crypto_operations_total").stream()
                .mapToDouble(ScrapedMetrics.Sample::value).sum();
        assertThat(signatures).as("the warm-up's signatures").isGreaterThan(100);
        assertThat(metrics.find("elastikey_ski_requests_total").stream().mapToDouble(ScrapedMetrics.Sample::value)
                .sum()).as("no client request counted").isZero();
        signAll(fixture.client(HttpClient.Version.HTTP_2), keys);
        signAll(fixture.client(HttpClient.Version.HTTP_1_1), keys);
    }

    /**
     * An import into a store whose last snapshot still matches it takes that snapshot and adds the keys it wrote,
     * without walking the store, and the start after it has the old keys and the new one cached.
     */
    @Test
    void anImportOnTopOfAMatchingSnapshotAddsItsKeysWithoutAWalk() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        StringWriter out = new StringWriter();
        CommandLine keys = KeysCommand.commandLine(Progress.NONE);
        keys.setOut(new PrintWriter(out, true));
        String[] common = {"--data", dir.toString(), "--set", "keys.expected=4096"};
        assertThat(keys.execute(concat(new String[] {"generate"}, common, "--count", "12"))).isZero();
        IssuedCertificate issued = fixture.pki().ca().issueServer("imported.example.test",
                List.of("imported.example.test"), KeyType.EC_P256, Validity.days(30));
        Path pem = dir.resolve("imported.pem");
        PemFiles.writePrivateKey(pem, issued.privateKey());
        Files.writeString(pem, Files.readString(pem) + Files.readString(writeChain(issued)));

        assertThat(keys.execute(concat(new String[] {"import"}, common, pem.toString()))).as(out.toString()).isZero();

        assertThat(out.toString()).contains("prepared the key server's next start: 13 keys cached (the last stop's "
                + "snapshot and the 1 key(s) written now)");
        fixture.startServing();
        assertReady();
        assertThat(fixture.metrics().value("elastikey_keys_snapshot_loaded")).isEqualTo(13);
        TestKey imported = new TestKey(KeyType.EC_P256, new KeyPair(issued.certificate().getPublicKey(), null),
                issued.certificate());
        signAll(fixture.client(HttpClient.Version.HTTP_1_1), List.of(imported));
        assertThat(fixture.metrics().value("elastikey_keys_cache_misses_total")).isZero();
    }

    private Path writeChain(IssuedCertificate issued) throws Exception {
        Path chain = dir.resolve("imported-chain.pem");
        PemFiles.writeCertificates(chain, issued.chain());
        return chain;
    }

    @Test
    void keysGenerateWithNoWarmStartLeavesNoFiles() throws Exception {
        StringWriter out = new StringWriter();
        CommandLine keys = KeysCommand.commandLine(Progress.NONE);
        keys.setOut(new PrintWriter(out, true));
        assertThat(keys.execute("generate", "--data", dir.toString(), "--count", "3", "--no-warm-start")).isZero();
        assertThat(out.toString()).doesNotContain("prepared");
        assertThat(dir.resolve("key-cache.sealed")).doesNotExist();
        assertThat(dir.resolve("hot-keys")).doesNotExist();
    }

    private static String[] concat(String[] first, String[] second, String... rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(second));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    /**
     * A stop soon after a start, while the reload is still on its way through a long list, saves the cache's keys and
     * the rest of the list: restarting twice in a row must not shrink a million-key list to what the first few
     * seconds loaded. 1,400,000 identifiers that name nothing come first (the list's limit is 1.5 million), so the
     * reload, some 2 µs each, has not reached the real keys when the server stops right after it is ready.
     */
    @Test
    void aStopBeforeTheReloadIsThroughKeepsTheRestOfTheList() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of("warmup.exercise", "0s"));
        List<TestKey> keys = addEcKeys(KEYS);
        List<String> real = keys.stream().map(WarmStartTest::fingerprint).map(String::toLowerCase).toList();
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < 1_400_000; i++) {
            list.append(String.format("%040x", i + 1)).append('\n');
        }
        real.forEach(identifier -> list.append(identifier).append('\n'));
        Files.writeString(dir.resolve("hot-keys"), list);

        fixture.startServing();
        assertReady();
        assertSigns(fixture.client(HttpClient.Version.HTTP_1_1), keys.get(KEYS - 1)); // the cache is not empty
        fixture.stop();

        List<String> saved = Files.readAllLines(dir.resolve("hot-keys")).stream().filter(l -> !l.startsWith("#"))
                .toList();
        assertThat(saved).containsAll(real);
        assertThat(Set.copyOf(saved)).hasSameSizeAs(saved);
    }

    /** The list a restart reloads is a million strings at scale; once every key was reached, nothing holds it. */
    @Test
    void aReloadThatReachedEveryKeyLetsGoOfItsList() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        List<String> identifiers = new ArrayList<>(addEcKeys(KEYS).stream().map(WarmStartTest::fingerprint)
                .map(String::toLowerCase).toList());
        WeakReference<List<String>> list = new WeakReference<>(identifiers);
        try (KeyRepository repository = KeyRepository.open(fixture.config(),
                CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
            KeyWarmup warmup = new KeyWarmup(repository, null); // a reload signs nothing
            warmup.reload(identifiers);
            identifiers = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (warmup.reloaded() < KEYS && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(warmup.reloaded()).isEqualTo(KEYS);
            assertThat(repository.cacheStats().entries()).isEqualTo(KEYS);
            // The reload threads end just after their last batch; until then they hold the list themselves.
            for (int i = 0; i < 200 && list.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertThat(list.get()).as("the reloaded list, still reachable").isNull();
            assertThat(warmup.notReloaded()).isEmpty();
        }
    }

    @Test
    void aDamagedHotKeyFileOnlyCostsTheWarmStart() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        List<TestKey> keys = addEcKeys(3);
        Files.writeString(dir.resolve("hot-keys"), "not an identifier\n" + "ab".repeat(20) + "\n"
                + fingerprint(keys.get(1)) + "\n\u0000\u0001garbage\n" + "cd".repeat(32) + "\n");
        fixture.startServing();
        assertReady();
        awaitReloaded(3); // the three identifiers, of which one names a key
        HttpClient client = fixture.client(HttpClient.Version.HTTP_1_1);
        for (TestKey key : keys) {
            assertSigns(client, key);
        }
    }

    /** Signs with every key at once, each answer verified with its certificate's public key. */
    private void signAll(HttpClient client, List<TestKey> keys) throws Exception {
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (TestKey key : keys) {
            answers.add(CompletableFuture.runAsync(() -> {
                try {
                    assertSigns(client, key);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    private void assertReady() throws Exception {
        HttpResponse<String> ready = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(fixture.adminUri("/readyz")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(200);
    }

    private void awaitReloaded(int total) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fixture.metrics().value("elastikey_keys_reload_loaded") < total && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(fixture.metrics().value("elastikey_keys_reload_planned")).isEqualTo(total);
        assertThat(fixture.metrics().value("elastikey_keys_reload_loaded")).isEqualTo(total);
    }

    private void assertSigns(HttpClient client, TestKey key) throws Exception {
        byte[] data = randomBytes(64);
        HttpResponse<String> response = fixture.post(client, """
                {"protocol":"TLS 1.2","method":"ECDHE","hash":"SHA-256","spki":"%s","input":"%s"}"""
                .formatted(fingerprint(key), base64(data)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(verifyEcdhe(key, "SHA-256", data, output(response))).isTrue();
    }

    private static String keyId(TestKey key) {
        return KeyIds.keyId(key.pair().getPublic());
    }

    private static String fingerprint(TestKey key) {
        return HexFormat.of().withUpperCase().formatHex(KeyIds.certificateSha1(key.certificate()));
    }

    private List<TestKey> addEcKeys(int count) throws Exception {
        CertificateAuthority ca = fixture.pki().ca();
        List<TestKey> keys = new ArrayList<>();
        List<KeyEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            KeyPair pair = KeyType.EC_P256.generate();
            String name = "warm-" + i + ".example.test";
            X509Certificate certificate = ca.certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, name,
                    List.of(name), Validity.days(30));
            entries.add(KeyEntry.generated(pair, List.of(certificate), Set.of()));
            keys.add(new TestKey(KeyType.EC_P256, pair, certificate));
        }
        try (KeyRepository repository = KeyRepository.open(fixture.config(),
                CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
            repository.addAll(entries);
        }
        return keys;
    }
}
