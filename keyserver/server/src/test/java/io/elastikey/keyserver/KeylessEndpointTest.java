package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.GokeylessWire.Answer;
import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.keyless.KeylessAnswerException;
import io.elastikey.protocol.keyless.KeylessClient;
import io.elastikey.protocol.keyless.KeylessError;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.protocol.ski.SkiTls;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Keyless endpoint as Keyless clients use it: frames built byte by byte as the reference client builds them
 * ({@link GokeylessWire}), over mutual TLS with the reference client's TLS 1.2 settings and with TLS 1.3. Every
 * signing opcode with every key type it fits, each signature verified with the public key by the JDK; raw RSA
 * decryption as a round trip; every error code; pipelining; and the project's own {@link KeylessClient}.
 */
class KeylessEndpointTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int RSA_DECRYPT = 0x01;
    private static final int PING = 0xF1;
    private static final int PONG = 0xF2;
    private static final int RESPONSE = 0xF0;
    private static final int ERROR = 0xFF;

    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static final Map<KeyType, TestKey> KEYS = new EnumMap<>(KeyType.class);

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        for (TestKey key : fixture.addKeys(List.of(KeyType.values()), Set.of("test"))) {
            KEYS.put(key.type(), key);
        }
        fixture.start();
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    /** A signing opcode: its byte, the JDK hash its payload is a value of ({@code MD5SHA1} for the pair), its family. */
    record Op(int code, String hash, String family) {
        @Override
        public String toString() {
            return "0x" + Integer.toHexString(code) + " " + family + " " + hash;
        }
    }

    static final List<Op> SIGNING_OPS = List.of(
            new Op(0x02, "MD5SHA1", "RSA"), new Op(0x03, "SHA-1", "RSA"), new Op(0x04, "SHA-224", "RSA"),
            new Op(0x05, "SHA-256", "RSA"), new Op(0x06, "SHA-384", "RSA"), new Op(0x07, "SHA-512", "RSA"),
            new Op(0x12, "MD5SHA1", "EC"), new Op(0x13, "SHA-1", "EC"), new Op(0x14, "SHA-224", "EC"),
            new Op(0x15, "SHA-256", "EC"), new Op(0x16, "SHA-384", "EC"), new Op(0x17, "SHA-512", "EC"),
            new Op(0x18, null, "Ed25519"),
            new Op(0x35, "SHA-256", "PSS"), new Op(0x36, "SHA-384", "PSS"), new Op(0x37, "SHA-512", "PSS"));

    static Stream<Arguments> signingCases() {
        List<Arguments> cases = new ArrayList<>();
        for (Op op : SIGNING_OPS) {
            for (KeyType type : KeyType.values()) {
                String algorithm = type.keyAlgorithm();
                boolean fits = op.family().equals("PSS") ? algorithm.equals("RSA") : op.family().equals(algorithm);
                if (fits) {
                    cases.add(Arguments.of(op, type));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} with {1}")
    @MethodSource("signingCases")
    void everySigningOpcodeSignsWithEveryKeyItFits(Op op, KeyType type) throws Exception {
        TestKey key = KEYS.get(type);
        byte[] message = randomBytes(100);
        byte[] payload = op.hash() == null ? message : hashValue(op.hash(), message);
        try (Connection connection = connect("TLSv1.3")) {
            Answer answer = connection.call(GokeylessWire.request(7, op.code(), ski(key), null, payload));

            assertThat(answer.id()).isEqualTo(7);
            assertThat(answer.opcode()).as("error %s", answer.error()).isEqualTo(RESPONSE);
            assertThat(verifies(op, key.pair().getPublic(), message, answer.payload())).isTrue();
        }
    }

    @Test
    void rsaDecryptIsTheRawOperationAndFindsKeysByModulusDigestToo() throws Exception {
        TestKey key = KEYS.get(KeyType.RSA_2048);
        byte[] secret = randomBytes(48);
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding");
        cipher.init(Cipher.ENCRYPT_MODE, key.pair().getPublic());
        byte[] ciphertext = cipher.doFinal(secret);
        try (Connection connection = connect("TLSv1.3")) {
            for (boolean byDigest : new boolean[] {false, true}) {
                byte[] digest = byDigest ? KeyIds.modulusDigest(key.pair().getPublic()) : null;
                Answer answer = connection.call(GokeylessWire.request(1, RSA_DECRYPT, byDigest ? null : ski(key),
                        digest, ciphertext));

                byte[] block = answer.payload();
                assertThat(answer.opcode()).isEqualTo(RESPONSE);
                assertThat(block).hasSize(256);
                assertThat(block[0]).isZero();
                assertThat(block[1]).isEqualTo((byte) 2);
                assertThat(Arrays.copyOfRange(block, 256 - 48, 256)).isEqualTo(secret);
                assertThat(block[256 - 49]).isZero();
            }
        }
    }

    @Test
    void pingIsAnsweredWithPongEchoingThePayload() throws Exception {
        byte[] payload = randomBytes(300);
        try (Connection connection = connect("TLSv1.3")) {
            Answer answer = connection.call(GokeylessWire.request(0xFFFFFFFF, PING, null, null, payload));

            assertThat(answer.id()).isEqualTo(0xFFFFFFFF);
            assertThat(answer.opcode()).isEqualTo(PONG);
            assertThat(answer.payload()).isEqualTo(payload);
        }
    }

    @Test
    void everyRefusalIsAnsweredWithItsErrorAndTheConnectionGoesOn() throws Exception {
        TestKey rsa = KEYS.get(KeyType.RSA_2048);
        TestKey ec = KEYS.get(KeyType.EC_P256);
        byte[] sha256 = hashValue("SHA-256", randomBytes(10));
        byte[] twoOpcodes = new byte[] {0x11, 0, 1, 0x15, 0x11, 0, 1, 0x15};
        byte[] itemPastTheEnd = new byte[] {0x11, 0, 1, 0x15, 0x12, 0, 50, 1, 2};
        try (Connection connection = connect("TLSv1.3")) {
            Map<String, byte[]> requests = new java.util.LinkedHashMap<>();
            requests.put("unknown key", GokeylessWire.request(1, 0x15, randomBytes(20), null, sha256));
            requests.put("no key named", GokeylessWire.request(2, 0x15, null, null, sha256));
            requests.put("bad opcode", GokeylessWire.request(3, 0x99, ski(ec), null, sha256));
            requests.put("answer opcode", GokeylessWire.request(4, RESPONSE, ski(ec), null, sha256));
            requests.put("ECDSA with an RSA key", GokeylessWire.request(5, 0x15, ski(rsa), null, sha256));
            requests.put("RSA with an EC key", GokeylessWire.request(6, 0x05, ski(ec), null, sha256));
            requests.put("digest of the wrong length", GokeylessWire.request(7, 0x15, ski(ec), null, randomBytes(31)));
            requests.put("two opcode items", GokeylessWire.frame(1, 8, twoOpcodes, twoOpcodes.length));
            requests.put("item past the end", GokeylessWire.frame(1, 9, itemPastTheEnd, itemPastTheEnd.length));
            requests.put("SKI of 19 bytes", GokeylessWire.request(10, 0x15, randomBytes(19), null, sha256));
            requests.put("no payload", GokeylessWire.request(11, 0x15, ski(ec), null, null));
            requests.put("oversized body", GokeylessWire.frame(1, 12, new byte[60_000], 60_000));
            Map<String, Integer> expected = Map.ofEntries(
                    Map.entry("unknown key", 0x02), Map.entry("no key named", 0x02), Map.entry("bad opcode", 0x05),
                    Map.entry("answer opcode", 0x06), Map.entry("ECDSA with an RSA key", 0x01),
                    Map.entry("RSA with an EC key", 0x01), Map.entry("digest of the wrong length", 0x01),
                    Map.entry("two opcode items", 0x07), Map.entry("item past the end", 0x07),
                    Map.entry("SKI of 19 bytes", 0x07), Map.entry("no payload", 0x07),
                    Map.entry("oversized body", 0x07));
            int id = 1;
            for (Map.Entry<String, byte[]> request : requests.entrySet()) {
                Answer answer = connection.call(request.getValue());
                assertThat(answer.id()).as(request.getKey()).isEqualTo(id++);
                assertThat(answer.opcode()).as(request.getKey()).isEqualTo(ERROR);
                assertThat(answer.error()).as(request.getKey()).isEqualTo(expected.get(request.getKey()));
            }
            Answer after = connection.call(GokeylessWire.request(99, 0x15, ski(ec), null, sha256));
            assertThat(after.opcode()).isEqualTo(RESPONSE);
        }
    }

    @Test
    void anotherMajorVersionIsAnsweredWithVersionMismatchAndTheConnectionClosed() throws Exception {
        byte[] body = new byte[] {0x11, 0, 1, (byte) PING};
        try (Connection connection = connect("TLSv1.3")) {
            Answer answer = connection.call(GokeylessWire.frame(2, 5, body, body.length));

            assertThat(answer.id()).isEqualTo(5);
            assertThat(answer.error()).isEqualTo(0x04);
            assertThat(connection.in.read()).isEqualTo(-1);
        }
    }

    @Test
    void pipelinedRequestsAreAllAnsweredByTheirIds() throws Exception {
        TestKey ec = KEYS.get(KeyType.EC_P256);
        TestKey rsa = KEYS.get(KeyType.RSA_2048);
        int count = 300;
        Map<Integer, byte[]> messages = new HashMap<>();
        try (Connection connection = connect("TLSv1.3")) {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (int id = 0; id < count; id++) {
                byte[] message = randomBytes(64);
                messages.put(id, message);
                TestKey key = id % 10 == 0 ? rsa : ec;
                int opcode = key == rsa ? 0x35 : 0x15;
                all.write(GokeylessWire.request(id, opcode, ski(key), null, hashValue("SHA-256", message)));
            }
            GokeylessWire.write(connection.out, all.toByteArray());
            Set<Integer> answered = new HashSet<>();
            for (int i = 0; i < count; i++) {
                Answer answer = GokeylessWire.read(connection.in);
                assertThat(answer.opcode()).isEqualTo(RESPONSE);
                boolean isRsa = answer.id() % 10 == 0;
                Op op = isRsa ? new Op(0x35, "SHA-256", "PSS") : new Op(0x15, "SHA-256", "EC");
                PublicKey key = (isRsa ? rsa : ec).pair().getPublic();
                assertThat(verifies(op, key, messages.get(answer.id()), answer.payload())).isTrue();
                answered.add(answer.id());
            }
            assertThat(answered).hasSize(count);
        }
    }

    @Test
    void answersComeInCompletionOrderNotRequestOrder() throws Exception {
        TestKey rsa = KEYS.get(KeyType.RSA_4096);
        byte[] message = randomBytes(20);
        int signatures = 6;
        try (Connection connection = connect("TLSv1.3")) {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (int id = 1; id <= signatures; id++) {
                all.write(GokeylessWire.request(id, 0x37, ski(rsa), null, hashValue("SHA-512", message)));
            }
            all.write(GokeylessWire.request(signatures + 1, PING, null, null, new byte[] {9}));
            GokeylessWire.write(connection.out, all.toByteArray());

            // The ping is answered on the event loop; six RSA-4096 signatures take the crypto workers several
            // signature times each. In request order the pong would come last; in completion order it comes before
            // some signature (on a loaded machine the event loop may be late, so not necessarily first).
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i <= signatures; i++) {
                Answer answer = GokeylessWire.read(connection.in);
                order.add(answer.id());
                if (answer.id() == signatures + 1) {
                    assertThat(answer.opcode()).isEqualTo(PONG);
                } else {
                    assertThat(verifies(new Op(0x37, "SHA-512", "PSS"), rsa.pair().getPublic(), message,
                            answer.payload())).isTrue();
                }
            }
            assertThat(order).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7);
            assertThat(order.get(signatures)).as("the pong is not held back behind the signatures: %s", order)
                    .isNotEqualTo(signatures + 1);
        }
    }

    @Test
    void theReferenceClientsTls12SuitesAreAccepted() throws Exception {
        TestKey ec = KEYS.get(KeyType.EC_P256);
        byte[] message = randomBytes(50);
        try (Connection connection = connect("TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")) {
            Answer answer = connection.call(GokeylessWire.request(3, 0x15, ski(ec), null, hashValue("SHA-256", message)));

            assertThat(connection.socket.getSession().getProtocol()).isEqualTo("TLSv1.2");
            assertThat(connection.socket.getSession().getCipherSuite()).isEqualTo("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
            assertThat(verifies(new Op(0x15, "SHA-256", "EC"), ec.pair().getPublic(), message, answer.payload())).isTrue();
        }
    }

    @Test
    void aClientWithoutACertificateGetsNoAnswer() throws Exception {
        SSLSocket socket = (SSLSocket) fixture.tls(null).getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                fixture.server().keylessAddress().getPort());
        socket.setSoTimeout(10_000);
        try (socket) {
            assertThatThrownBy(() -> {
                socket.startHandshake();
                GokeylessWire.write(socket.getOutputStream(), GokeylessWire.request(1, PING, null, null, new byte[4]));
                if (socket.getInputStream().read() < 0) {
                    throw new IOException("closed");
                }
            }).isInstanceOf(IOException.class);
        }
    }

    @Test
    void answersAreCountedUnderTheKeylessProtocol() throws Exception {
        TestKey ec = KEYS.get(KeyType.EC_P256);
        double before = fixture.metrics().value("elastikey_keyless_requests_total", "method", "ECDSA-DIGEST",
                "result", "ok");
        try (Connection connection = connect("TLSv1.3")) {
            connection.call(GokeylessWire.request(1, 0x15, ski(ec), null, hashValue("SHA-256", randomBytes(5))));
        }
        KeyServerFixture.await("the answer is counted", () -> fixture.metrics().value(
                "elastikey_keyless_requests_total", "method", "ECDSA-DIGEST", "result", "ok") - before == 1.0);
    }

    @Test
    void theKeylessClientServesWhatAnEdgeAsks() throws Exception {
        IssuedCertificate identity = fixture.pki().client();
        try (KeylessClient client = KeylessClient.create(SkiTls.clientContext(identity.chain(), identity.privateKey(),
                        List.of(fixture.pki().ca().certificate()), null, SkiTls.defaultProvider()),
                fixture.server().keylessAddress(), SkiClientOptions.builder().connections(2)
                        .requestTimeout(Duration.ofSeconds(10)).serverName("localhost").build())) {
            for (KeyType type : List.of(KeyType.EC_P256, KeyType.EC_P384, KeyType.RSA_2048, KeyType.ED25519)) {
                TestKey key = KEYS.get(type);
                SignatureScheme scheme = switch (type) {
                    case EC_P256 -> SignatureScheme.ECDSA_SECP256R1_SHA256;
                    case EC_P384 -> SignatureScheme.ECDSA_SECP384R1_SHA384;
                    case ED25519 -> SignatureScheme.ED25519;
                    default -> SignatureScheme.RSA_PSS_RSAE_SHA256;
                };
                byte[] data = randomBytes(80);
                String keyId = KeyIds.keyId(key.pair().getPublic());
                byte[] signature = client.execute(SkiRequest.sign(keyId, scheme, data)).get(10, TimeUnit.SECONDS);
                assertThat(verifies(opFor(scheme), key.pair().getPublic(), data, signature)).as("%s", type).isTrue();
            }
            assertThat(client.ping(new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS)).containsExactly(1, 2, 3);
            assertThatThrownBy(() -> client.execute(SkiRequest.sign("ab".repeat(32), SignatureScheme.ED25519,
                    new byte[1])).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(KeylessAnswerException.class)
                    .satisfies(e -> {
                        assertThat(((KeylessAnswerException) e).keylessError()).isEqualTo(KeylessError.KEY_NOT_FOUND);
                        assertThat(((SkiException) e).error()).isEqualTo(SkiError.SPKI_NOT_FOUND);
                    });
        }
    }

    private static Op opFor(SignatureScheme scheme) {
        return switch (scheme) {
            case ECDSA_SECP256R1_SHA256 -> new Op(0x15, "SHA-256", "EC");
            case ECDSA_SECP384R1_SHA384 -> new Op(0x16, "SHA-384", "EC");
            case ED25519 -> new Op(0x18, null, "Ed25519");
            default -> new Op(0x35, "SHA-256", "PSS");
        };
    }

    /** Whether {@code signature} is {@code op}'s signature of {@code message} by the key of {@code key}. */
    private static boolean verifies(Op op, PublicKey key, byte[] message, byte[] signature) throws Exception {
        Signature verifier;
        byte[] signed = message;
        String plain = op.hash() == null ? null : op.hash().replace("-", "");
        switch (op.family()) {
            case "Ed25519" -> verifier = Signature.getInstance("Ed25519");
            case "PSS" -> {
                verifier = Signature.getInstance("RSASSA-PSS");
                verifier.setParameter(new PSSParameterSpec(op.hash(), "MGF1", new MGF1ParameterSpec(op.hash()),
                        MessageDigest.getInstance(op.hash()).getDigestLength(), 1));
            }
            default -> {
                String suffix = op.family().equals("RSA") ? "withRSA" : "withECDSA";
                if (op.hash().equals("MD5SHA1")) {
                    verifier = Signature.getInstance("NONE" + suffix);
                    signed = hashValue("MD5SHA1", message);
                } else {
                    verifier = Signature.getInstance(plain + suffix);
                }
            }
        }
        if (op.family().equals("PSS") || op.family().equals("RSA")) {
            assertThat(signature).hasSize((((RSAPublicKey) key).getModulus().bitLength() + 7) / 8);
        }
        verifier.initVerify(key);
        verifier.update(signed);
        return verifier.verify(signature);
    }

    private static byte[] hashValue(String hash, byte[] message) throws Exception {
        if (hash.equals("MD5SHA1")) {
            byte[] both = new byte[36];
            System.arraycopy(MessageDigest.getInstance("MD5").digest(message), 0, both, 0, 16);
            System.arraycopy(MessageDigest.getInstance("SHA-1").digest(message), 0, both, 16, 20);
            return both;
        }
        return MessageDigest.getInstance(hash).digest(message);
    }

    private static byte[] ski(TestKey key) {
        return KeyIds.keylessSki(key.pair().getPublic());
    }

    private static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static Connection connect(String protocol, String... suites) throws Exception {
        SSLContext tls = fixture.tls(fixture.pki().client());
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                fixture.server().keylessAddress().getPort());
        socket.setSoTimeout(20_000);
        socket.setEnabledProtocols(new String[] {protocol});
        if (suites.length > 0) {
            socket.setEnabledCipherSuites(suites);
        }
        socket.startHandshake();
        return new Connection(socket, socket.getInputStream(), socket.getOutputStream());
    }

    /** One client connection, requests written whole. */
    private record Connection(SSLSocket socket, InputStream in, OutputStream out) implements AutoCloseable {
        Answer call(byte[] frame) throws IOException {
            GokeylessWire.write(out, frame);
            return GokeylessWire.read(in);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
