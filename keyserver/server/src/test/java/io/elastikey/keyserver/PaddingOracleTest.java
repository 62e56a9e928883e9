package io.elastikey.keyserver;

import static io.elastikey.keyserver.SkiEndToEndTest.base64;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.crypto.Cipher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code RSA} method is no padding oracle, seen from outside: over the real server, ciphertexts whose PKCS#1
 * v1.5 type-2 padding is broken in each way a Bleichenbacher attacker probes are answered exactly like a valid
 * one (status 200, a 48-byte output, nothing else in the body, the same request counter), deterministically per
 * ciphertext, with a different answer for each ciphertext, and never with bytes of the decrypted block.
 *
 * <p>Invalid ciphertexts are made with the textbook public operation {@code m^e mod n} on hand-built blocks, so
 * the test controls every byte the server will find after decryption.
 */
class PaddingOracleTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int PREMASTER = 48;

    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static final Map<KeyType, TestKey> KEYS = new EnumMap<>(KeyType.class);
    private static final Map<HttpClient.Version, HttpClient> CLIENTS = new EnumMap<>(HttpClient.Version.class);

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        for (TestKey key : fixture.addKeys(List.of(KeyType.RSA_2048, KeyType.RSA_4096), Set.of("test"))) {
            KEYS.put(key.type(), key);
        }
        fixture.start();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            CLIENTS.put(version, fixture.client(version));
        }
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @ParameterizedTest
    @EnumSource(value = KeyType.class, names = {"RSA_2048", "RSA_4096"})
    void invalidPaddingIsAnsweredLikeValidPadding(KeyType type) throws Exception {
        RSAPublicKey publicKey = (RSAPublicKey) KEYS.get(type).pair().getPublic();
        int k = (publicKey.getModulus().bitLength() + 7) / 8;
        byte[] premaster = random(PREMASTER);
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, publicKey);
        byte[] valid = cipher.doFinal(premaster);

        Map<String, byte[]> blocks = invalidBlocks(k);
        double okBefore = fixture.metrics().value("elastikey_ski_requests_total", "method", "RSA", "result", "ok");

        assertThat(decrypt(type, valid)).as("the valid ciphertext decrypts").isEqualTo(premaster);
        Set<String> answers = new HashSet<>();
        for (Map.Entry<String, byte[]> block : blocks.entrySet()) {
            byte[] answer = decrypt(type, publicOperation(publicKey, block.getValue()));
            byte[] tail = Arrays.copyOfRange(block.getValue(), k - PREMASTER, k);
            assertThat(answer).as(block.getKey() + ": not the block's last 48 bytes").isNotEqualTo(tail);
            answers.add(Base64.getEncoder().encodeToString(answer));
        }

        assertThat(answers).as("a different answer for every ciphertext").hasSize(blocks.size());
        int requests = 2 * (1 + blocks.size());
        KeyServerFixture.await("every request counted as ok", () -> fixture.metrics().value(
                "elastikey_ski_requests_total", "method", "RSA", "result", "ok") - okBefore == requests);
    }

    /** Type-2 blocks of {@code k} bytes, each broken in one way TLS servers have been probed with. */
    private static Map<String, byte[]> invalidBlocks(int k) {
        Map<String, byte[]> blocks = new LinkedHashMap<>();
        blocks.put("first byte 01", block(k, 0x01, 0x02, k - 3 - PREMASTER, PREMASTER));
        blocks.put("block type 01 (a signature block)", block(k, 0x00, 0x01, k - 3 - PREMASTER, PREMASTER));
        blocks.put("block type 00", block(k, 0x00, 0x00, k - 3 - PREMASTER, PREMASTER));
        blocks.put("block type 03", block(k, 0x00, 0x03, k - 3 - PREMASTER, PREMASTER));
        byte[] noSeparator = block(k, 0x00, 0x02, k - 2, 0);
        blocks.put("no zero separator", noSeparator);
        blocks.put("padding string of 7 bytes", block(k, 0x00, 0x02, 7, k - 10));
        blocks.put("padding string of 1 byte", block(k, 0x00, 0x02, 1, k - 4));
        blocks.put("message of 47 bytes", block(k, 0x00, 0x02, k - 3 - 47, 47));
        blocks.put("message of 49 bytes", block(k, 0x00, 0x02, k - 3 - 49, 49));
        blocks.put("message of 32 bytes", block(k, 0x00, 0x02, k - 3 - 32, 32));
        blocks.put("empty message", block(k, 0x00, 0x02, k - 3, 0));
        return blocks;
    }

    /**
     * {@code first type PS 00 M}: a padding string of {@code padding} non-zero random bytes and a random message of
     * {@code message} bytes; with {@code padding = k - 2} there is no separator at all.
     */
    private static byte[] block(int k, int first, int type, int padding, int message) {
        byte[] block = new byte[k];
        block[0] = (byte) first;
        block[1] = (byte) type;
        for (int i = 2; i < 2 + padding; i++) {
            block[i] = (byte) (1 + RANDOM.nextInt(255));
        }
        if (2 + padding < k) {
            block[2 + padding] = 0;
            byte[] m = random(message);
            System.arraycopy(m, 0, block, 3 + padding, message);
        }
        return block;
    }

    /** The textbook RSA public operation, as many bytes as the modulus. */
    private static byte[] publicOperation(RSAPublicKey key, byte[] block) {
        int k = (key.getModulus().bitLength() + 7) / 8;
        byte[] c = new BigInteger(1, block).modPow(key.getPublicExponent(), key.getModulus()).toByteArray();
        byte[] out = new byte[k];
        int copy = Math.min(c.length, k);
        System.arraycopy(c, c.length - copy, out, k - copy, copy);
        return out;
    }

    /**
     * Sends {@code ciphertext} once over each protocol (two connections), checks both answers look exactly like a
     * success and agree, and returns the output.
     */
    private static byte[] decrypt(KeyType type, byte[] ciphertext) throws Exception {
        List<byte[]> outputs = new ArrayList<>();
        for (HttpClient client : CLIENTS.values()) {
            HttpResponse<String> response = fixture.post(client, """
                    {"protocol":"TLS 1.2","method":"RSA","spki":"%s","input":"%s"}"""
                    .formatted(KeyIds.keyId(KEYS.get(type).pair().getPublic()), base64(ciphertext)));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode body = JSON.readTree(response.body());
            assertThat(body.size()).as("only an output in " + response.body()).isEqualTo(1);
            byte[] output = Base64.getDecoder().decode(body.get("output").asText());
            assertThat(output).hasSize(PREMASTER);
            outputs.add(output);
        }
        assertThat(outputs.get(1)).as("the same ciphertext gets the same answer").isEqualTo(outputs.get(0));
        return outputs.get(0);
    }

    private static byte[] random(int n) {
        byte[] bytes = new byte[n];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
