package io.elastikey.keyserver;

import static io.elastikey.keyserver.SkiEndToEndTest.base64;
import static io.elastikey.keyserver.SkiEndToEndTest.certificateSha1Upper;
import static io.elastikey.keyserver.SkiEndToEndTest.output;
import static io.elastikey.keyserver.SkiEndToEndTest.randomBytes;
import static io.elastikey.keyserver.SkiEndToEndTest.verifyEcdhe;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Pem;

import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.EdECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys survive a restart, and their private halves never show outside the sealed store. One key of every type is
 * added, used, the server stopped and started again on the same data directory; then every key must answer under
 * every name it has, and no store file, log line (everything logged at DEBUG, audit lines included) or metrics
 * output may hold any private key in any form: its PKCS#8 DER, that DER in base64, its PEM text, or its secret
 * numbers (RSA {@code d}, {@code p}, {@code q}; the EC scalar; the Ed25519 seed) raw, in hex or in base64.
 *
 * <p>The data directory also holds {@code pki/*.key}, the dev TLS identities' keys, in the clear by design; only
 * {@code keys/}, the store, is scanned. A control test proves the scanner finds a key where one is.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RestartAndLeakTest {
    private static final List<KeyType> TYPES = List.of(KeyType.values());
    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static LogCapture logs;
    private static final Map<KeyType, TestKey> KEYS = new EnumMap<>(KeyType.class);
    private static final Map<HttpClient.Version, HttpClient> CLIENTS = new EnumMap<>(HttpClient.Version.class);
    /** For each RSA key: a ciphertext with bad padding and the answer the first run gave. */
    private static final Map<KeyType, byte[][]> BAD_PADDING_ANSWERS = new EnumMap<>(KeyType.class);

    @BeforeAll
    static void runStopAndRestart() throws Exception {
        logs = LogCapture.everything();
        fixture = KeyServerFixture.create(dir, Map.of());
        for (TestKey key : fixture.addKeys(TYPES, Set.of("test"))) {
            KEYS.put(key.type(), key);
        }
        fixture.start();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            CLIENTS.put(version, fixture.client(version));
        }
        for (TestKey key : KEYS.values()) {
            assertSigns(key, KeyIds.keyId(key.pair().getPublic()));
            if (key.pair().getPublic() instanceof RSAPublicKey publicKey) {
                assertDecrypts(key);
                byte[] ciphertext = badPaddingCiphertext(publicKey);
                BAD_PADDING_ANSWERS.put(key.type(), new byte[][] {ciphertext, rsa(key, ciphertext)});
            }
        }
        fixture.stop();
        fixture.start();
    }

    @AfterAll
    static void stop() {
        fixture.close();
        logs.close();
    }

    @Test
    @Order(1)
    void everyKeyAnswersUnderEveryNameAfterARestart() throws Exception {
        assertThat(fixture.server().config().dataDir()).isEqualTo(dir.toAbsolutePath().normalize());
        for (TestKey key : KEYS.values()) {
            for (String name : names(key)) {
                assertSigns(key, name);
            }
            if (key.pair().getPublic() instanceof RSAPublicKey) {
                assertDecrypts(key);
            }
        }
        assertThat(fixture.metrics().value("elastikey_keys_stored")).isEqualTo(TYPES.size());
    }

    @Test
    @Order(2)
    void badPaddingGetsTheSameAnswerAfterARestart() throws Exception {
        assertThat(BAD_PADDING_ANSWERS).hasSize(3);
        for (Map.Entry<KeyType, byte[][]> entry : BAD_PADDING_ANSWERS.entrySet()) {
            byte[][] ciphertextAndAnswer = entry.getValue();
            assertThat(rsa(KEYS.get(entry.getKey()), ciphertextAndAnswer[0])).as(entry.getKey().toString())
                    .isEqualTo(ciphertextAndAnswer[1]);
        }
    }

    @Test
    @Order(3)
    void storeFilesHoldNoPrivateKeyBytes() throws Exception {
        Path store = dir.resolve("keys");
        List<Path> files = regularFiles(store);
        assertThat(files).as("the store has files to scan").isNotEmpty();

        for (Path file : files) {
            assertHoldsNoPrivateKey(file.toString(), Files.readAllBytes(file));
        }
    }

    @Test
    @Order(4)
    void logsHoldNoPrivateKeyBytes() throws Exception {
        KeyServerFixture.await("audit lines are written", () -> logs.text().contains(" elastikey.audit "));
        assertThat(logs.text()).as("the start-up lines were captured").contains("key server listening on");

        assertHoldsNoPrivateKey("captured logs", logs.bytes());
    }

    @Test
    @Order(5)
    void metricsHoldNoPrivateKeyBytes() throws Exception {
        String metrics = fixture.admin("/metrics").body();
        assertThat(metrics).contains("elastikey_ski_requests_total");

        assertHoldsNoPrivateKey("/metrics", metrics.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @Order(6)
    void scannerFindsAKeyWhereThereIsOne() throws Exception {
        // The dev TLS server key sits in the clear in pki/server.key; the same scan must see it.
        byte[] file = Files.readAllBytes(dir.resolve("pki").resolve(DevPki.SERVER_KEY));
        Map<String, byte[]> needles = needles(fixture.pki().server().privateKey());

        assertThat(find(file, needles)).contains("PEM");
        assertThat(find(file, needles(KEYS.get(KeyType.EC_P256).pair().getPrivate()))).isEmpty();
        // And raw bytes anywhere in a large binary file.
        byte[] der = fixture.pki().server().privateKey().getEncoded();
        byte[] binary = new byte[1 << 20];
        RANDOM.nextBytes(binary);
        System.arraycopy(der, 0, binary, binary.length - der.length - 3, der.length);
        assertThat(find(binary, needles)).contains("DER", "secret 0");
    }

    private static void assertHoldsNoPrivateKey(String where, byte[] haystack) {
        Map<String, byte[]> needles = new LinkedHashMap<>();
        KEYS.values().forEach(key -> needles(key.pair().getPrivate())
                .forEach((form, needle) -> needles.put(key.type() + " " + form, needle)));

        assertThat(find(haystack, needles)).as("key material in %s", where).isEmpty();
    }

    /** The forms a private key could leak in, by name. */
    private static Map<String, byte[]> needles(PrivateKey key) {
        byte[] der = key.getEncoded();
        Map<String, byte[]> needles = new LinkedHashMap<>();
        needles.put("DER", der);
        needles.put("DER base64", Base64.getEncoder().encode(der));
        needles.put("PEM", Pem.writePrivateKey(key).getBytes(StandardCharsets.US_ASCII));
        List<byte[]> secrets = secrets(key);
        for (int i = 0; i < secrets.size(); i++) {
            byte[] secret = secrets.get(i);
            needles.put("secret " + i, secret);
            needles.put("secret " + i + " hex", HexFormat.of().formatHex(secret).getBytes(StandardCharsets.US_ASCII));
            needles.put("secret " + i + " HEX", HexFormat.of().withUpperCase().formatHex(secret)
                    .getBytes(StandardCharsets.US_ASCII));
            needles.put("secret " + i + " base64", Base64.getEncoder().encode(secret));
        }
        return needles;
    }

    /** The numbers that are the key: whoever has one of them has the key. */
    private static List<byte[]> secrets(PrivateKey key) {
        if (key instanceof RSAPrivateCrtKey rsa) {
            return List.of(magnitude(rsa.getPrivateExponent()), magnitude(rsa.getPrimeP()),
                    magnitude(rsa.getPrimeQ()));
        }
        if (key instanceof ECPrivateKey ec) {
            return List.of(magnitude(ec.getS()));
        }
        if (key instanceof EdECPrivateKey ed) {
            return List.of(ed.getBytes().orElseThrow());
        }
        throw new IllegalArgumentException("no secrets known for " + key.getAlgorithm());
    }

    private static byte[] magnitude(BigInteger value) {
        byte[] bytes = value.toByteArray();
        return bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }

    /**
     * The names of the needles found in {@code haystack}, in one pass (the store's index file is over 100 MB):
     * needles are indexed by their first four bytes, and only those whose prefix matches are compared in full.
     */
    private static List<String> find(byte[] haystack, Map<String, byte[]> needles) {
        Map<Integer, List<String>> byPrefix = new HashMap<>();
        needles.forEach((name, needle) -> byPrefix.computeIfAbsent(prefix(needle, 0), p -> new ArrayList<>())
                .add(name));
        Set<String> found = new LinkedHashSet<>();
        for (int i = 0; i + 4 <= haystack.length; i++) {
            List<String> candidates = byPrefix.get(prefix(haystack, i));
            if (candidates == null) {
                continue;
            }
            for (String name : candidates) {
                byte[] needle = needles.get(name);
                if (i + needle.length <= haystack.length
                        && Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                    found.add(name);
                }
            }
        }
        return List.copyOf(found);
    }

    private static int prefix(byte[] bytes, int at) {
        return (bytes[at] & 0xff) << 24 | (bytes[at + 1] & 0xff) << 16 | (bytes[at + 2] & 0xff) << 8
                | bytes[at + 3] & 0xff;
    }

    private static List<Path> regularFiles(Path root) throws Exception {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    /** Every name a key answers to: SPKI SHA-256, certificate SHA-1 (both cases), Keyless SKI, modulus digest. */
    private static List<String> names(TestKey key) throws Exception {
        List<String> names = new ArrayList<>(List.of(
                KeyIds.keyId(key.pair().getPublic()),
                certificateSha1Upper(key),
                certificateSha1Upper(key).toLowerCase(java.util.Locale.ROOT),
                HexFormat.of().formatHex(KeyIds.keylessSki(key.pair().getPublic()))));
        if (key.pair().getPublic() instanceof RSAPublicKey) {
            names.add(HexFormat.of().formatHex(KeyIds.modulusDigest(key.pair().getPublic())));
        }
        return names;
    }

    private static void assertSigns(TestKey key, String name) throws Exception {
        for (HttpClient client : CLIENTS.values()) {
            byte[] data = randomBytes(80);
            HttpResponse<String> response = fixture.post(client, """
                    {"protocol":"TLS 1.2","method":"ECDHE","hash":"SHA-256","spki":"%s","input":"%s"}"""
                    .formatted(name, base64(data)));
            assertThat(response.statusCode()).as(key.type() + " as " + name + ": " + response.body()).isEqualTo(200);
            assertThat(verifyEcdhe(key, "SHA-256", data, output(response))).as(key.type() + " signature").isTrue();
        }
    }

    private static void assertDecrypts(TestKey key) throws Exception {
        byte[] premaster = randomBytes(48);
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, key.pair().getPublic());
        assertThat(rsa(key, cipher.doFinal(premaster))).as(key.type() + " decryption").isEqualTo(premaster);
    }

    private static byte[] rsa(TestKey key, byte[] ciphertext) throws Exception {
        HttpResponse<String> response = fixture.post(CLIENTS.get(HttpClient.Version.HTTP_2), """
                {"protocol":"TLS 1.2","method":"RSA","spki":"%s","input":"%s"}"""
                .formatted(KeyIds.keyId(key.pair().getPublic()), base64(ciphertext)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return output(response);
    }

    /** {@code 00 02 PS} with no zero separator, through the textbook public operation. */
    private static byte[] badPaddingCiphertext(RSAPublicKey key) {
        int k = (key.getModulus().bitLength() + 7) / 8;
        byte[] block = new byte[k];
        block[1] = 2;
        for (int i = 2; i < k; i++) {
            block[i] = (byte) (1 + RANDOM.nextInt(255));
        }
        byte[] c = new BigInteger(1, block).modPow(key.getPublicExponent(), key.getModulus()).toByteArray();
        byte[] out = new byte[k];
        int copy = Math.min(c.length, k);
        System.arraycopy(c, c.length - copy, out, k - copy, copy);
        return out;
    }
}
