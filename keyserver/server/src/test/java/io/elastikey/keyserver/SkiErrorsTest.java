package io.elastikey.keyserver;

import static io.elastikey.keyserver.SkiEndToEndTest.base64;
import static io.elastikey.keyserver.SkiEndToEndTest.output;
import static io.elastikey.keyserver.SkiEndToEndTest.randomBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;

import java.io.IOException;
import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every error answer of docs/keyserver.md's table, status and body exactly, from a real key server over mutual
 * TLS, on HTTP/1.1 and HTTP/2 where both apply. After every test the server must still answer a good request on
 * both protocols: no error may leave it, or a connection it keeps, broken.
 *
 * <p>The server runs with one crypto worker and a queue of one, so a burst of RSA-4096 requests overflows it;
 * every other test sends one request at a time, which that never refuses.
 */
class SkiErrorsTest {
    private static final String MALFORMED = "{\"error\":\"malformed request\"}";
    private static final String DENIED = "{\"error\":\"request denied\"}";
    private static final String NOT_FOUND = "{\"error\":\"spki not found\"}";
    private static final String OVERLOADED = "{\"error\":\"overloaded\"}";
    private static final int BODY_LIMIT = 4096;
    private static final int HEADER_LIMIT = 2048;

    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static final Map<KeyType, TestKey> KEYS = new EnumMap<>(KeyType.class);
    private static final Map<HttpClient.Version, HttpClient> CLIENTS = new EnumMap<>(HttpClient.Version.class);
    private static HttpClient outsider;
    private static IssuedCertificate outsiderIdentity;
    /** A key no test uses but {@link #aDeniedKeyIsNotUnsealedOnTheCallersBehalf}. */
    private static TestKey freshKey;

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of(
                "policy", dir.resolve("policy.conf").toString(),
                "crypto.workers", "1",
                "crypto.queue", "1",
                "limits.body", Integer.toString(BODY_LIMIT),
                "limits.header", Integer.toString(HEADER_LIMIT)));
        for (TestKey key : fixture.addKeys(List.of(KeyType.RSA_2048, KeyType.RSA_4096, KeyType.EC_P256,
                KeyType.ED25519), Set.of("test"))) {
            KEYS.put(key.type(), key);
        }
        freshKey = fixture.addNewKey(KeyType.EC_P256, Set.of("test"));
        IssuedCertificate other = fixture.pki().ca().issueClient("edge-other", List.of(), KeyType.EC_P256,
                Validity.days(1));
        outsiderIdentity = other;
        fixture.writePolicy("""
                rule development
                  client fingerprint %s
                  allow all
                rule other
                  client cn edge-other
                  allow tag other
                """.formatted(KeyServerFixture.fingerprintOf(fixture.pki().client())));
        // A hot-key file that names every key but the fresh one, so that the start loads the others and not it.
        Files.write(dir.resolve("hot-keys"), KEYS.values().stream()
                .map(key -> KeyIds.keyId(key.pair().getPublic())).toList());
        fixture.start();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            CLIENTS.put(version, fixture.client(version));
        }
        outsider = fixture.client(HttpClient.Version.HTTP_2, other);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    /** The server keeps working: a good request succeeds on each protocol's (possibly reconnected) client. */
    @AfterEach
    void serverStillAnswersAGoodRequest() throws Exception {
        for (HttpClient client : CLIENTS.values()) {
            assertGoodRequestSucceeds(client);
        }
    }

    static Stream<Arguments> malformedBodies() {
        // {ec}, {rsa}, {ed}: key IDs filled in by the test (the keys exist only once the server does).
        String input = "\"input\":\"AAECAw==\"";
        List<Object[]> cases = List.of(
                new Object[] {"not JSON", "this is not json"},
                new Object[] {"truncated JSON", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":"},
                new Object[] {"empty body", ""},
                new Object[] {"a JSON array", "[]"},
                new Object[] {"a JSON string", "\"ECDHE\""},
                new Object[] {"data after the object", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"{ec}\","
                        + input + "} {}"},
                new Object[] {"missing method", "{\"hash\":\"SHA-256\",\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"missing spki", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\"," + input + "}"},
                new Object[] {"missing input", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"{ec}\"}"},
                new Object[] {"empty input", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"{ec}\","
                        + "\"input\":\"\"}"},
                new Object[] {"ECDHE without hash", "{\"method\":\"ECDHE\",\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"SIGN without scheme", "{\"method\":\"SIGN\",\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"unknown method", "{\"method\":\"RSA-OAEP\",\"spki\":\"{rsa}\"," + input + "}"},
                new Object[] {"lower-case method", "{\"method\":\"ecdhe\",\"hash\":\"SHA-256\",\"spki\":\"{ec}\","
                        + input + "}"},
                new Object[] {"unknown hash", "{\"method\":\"ECDHE\",\"hash\":\"SHA3-256\",\"spki\":\"{ec}\","
                        + input + "}"},
                new Object[] {"unknown scheme", "{\"method\":\"SIGN\",\"scheme\":\"ecdsa_brainpool\",\"spki\":\"{ec}\","
                        + input + "}"},
                new Object[] {"unknown protocol", "{\"protocol\":\"TLS 9.9\",\"method\":\"ECDHE\",\"hash\":\"SHA-256\","
                        + "\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"method not a string", "{\"method\":1,\"hash\":\"SHA-256\",\"spki\":\"{ec}\","
                        + input + "}"},
                new Object[] {"spki null", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":null," + input + "}"},
                new Object[] {"input a number", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"{ec}\","
                        + "\"input\":42}"},
                new Object[] {"input not base64", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"{ec}\","
                        + "\"input\":\"@@@@\"}"},
                new Object[] {"spki not hex", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\""
                        + "z".repeat(64) + "\"," + input + "}"},
                new Object[] {"spki of a wrong length", "{\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\""
                        + "ab".repeat(16) + "\"," + input + "}"},
                new Object[] {"a field twice", "{\"method\":\"ECDHE\",\"method\":\"ECDHE\",\"hash\":\"SHA-256\","
                        + "\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"RSA on an EC key", "{\"method\":\"RSA\",\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"RSA-RAW on an Ed25519 key", "{\"method\":\"RSA-RAW\",\"spki\":\"{ed}\"," + input + "}"},
                new Object[] {"an RSA scheme on an EC key", "{\"method\":\"SIGN\",\"scheme\":\"rsa_pkcs1_sha256\","
                        + "\"spki\":\"{ec}\"," + input + "}"},
                new Object[] {"an ECDSA scheme on an RSA key", "{\"method\":\"SIGN\","
                        + "\"scheme\":\"ecdsa_secp256r1_sha256\",\"spki\":\"{rsa}\"," + input + "}"},
                new Object[] {"ed25519 on an EC key", "{\"method\":\"SIGN\",\"scheme\":\"ed25519\",\"spki\":\"{ec}\","
                        + input + "}"},
                new Object[] {"RSA input shorter than the modulus", "{\"method\":\"RSA\",\"spki\":\"{rsa}\","
                        + input + "}"});
        List<Arguments> arguments = new ArrayList<>();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            for (Object[] c : cases) {
                arguments.add(Arguments.of(version, c[0], c[1]));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("malformedBodies")
    void malformedRequestsAreAnswered400(HttpClient.Version version, String what, String template) throws Exception {
        HttpResponse<String> response = fixture.post(CLIENTS.get(version), template
                .replace("{ec}", keyId(KeyType.EC_P256))
                .replace("{rsa}", keyId(KeyType.RSA_2048))
                .replace("{ed}", keyId(KeyType.ED25519)));

        assertAnswer(response, 400, MALFORMED);
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void rsaInputNotBelowTheModulusIsMalformed(HttpClient.Version version) throws Exception {
        RSAPublicKey key = (RSAPublicKey) KEYS.get(KeyType.RSA_2048).pair().getPublic();
        byte[] modulus = unsigned(key.getModulus(), 256);

        for (String method : List.of("RSA", "RSA-RAW")) {
            HttpResponse<String> response = fixture.post(CLIENTS.get(version), """
                    {"method":"%s","spki":"%s","input":"%s"}""".formatted(method, keyId(KeyType.RSA_2048),
                    base64(modulus)));
            assertAnswer(response, 400, MALFORMED);
        }
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void unknownKeyIsAnswered404(HttpClient.Version version) throws Exception {
        for (String spki : List.of("ab".repeat(32), "CD".repeat(20))) {
            HttpResponse<String> response = fixture.post(CLIENTS.get(version), """
                    {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"AAECAw=="}""".formatted(spki));
            assertAnswer(response, 404, NOT_FOUND);
        }
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void keyTheClientIsNotGrantedIsAnsweredExactlyAsAnUnknownKey(HttpClient.Version version) throws Exception {
        HttpClient client = fixture.client(version, outsiderIdentity);
        String unknownKey = "ef".repeat(32);
        HttpResponse<String> unknown = fixture.post(client, ecdhe(unknownKey));
        assertAnswer(unknown, 404, NOT_FOUND);
        double deniedBefore = deniedCount();

        for (KeyType type : KEYS.keySet()) {
            HttpResponse<String> denied = fixture.post(client, ecdhe(keyId(type)));

            assertAnswer(denied, 404, NOT_FOUND);
            assertThat(denied.headers().map()).as(type + ": headers").isEqualTo(unknown.headers().map());
        }
        // The operator still learns the true reason.
        KeyServerFixture.await("denials counted", () -> deniedCount() == deniedBefore + KEYS.size());
    }

    @Test
    void aDeniedKeyIsNotUnsealedOnTheCallersBehalf() throws Exception {
        // A key the start did not load (not in the hot-key file) nor anyone asked for: a denial comes from its clear fields.
        TestKey fresh = freshKey;
        double missesBefore = fixture.metrics().value("elastikey_keys_cache_misses_total");
        double entriesBefore = fixture.metrics().value("elastikey_keys_cache_entries");

        assertAnswer(fixture.post(outsider, ecdhe(KeyIds.keyId(fresh.pair().getPublic()))), 404, NOT_FOUND);

        assertThat(fixture.metrics().value("elastikey_keys_cache_entries")).as("nothing cached")
                .isEqualTo(entriesBefore);
        assertThat(fixture.metrics().value("elastikey_keys_cache_misses_total")).as("a miss, counted once")
                .isEqualTo(missesBefore + 1);
        // Still usable by a client granted it.
        assertThat(fixture.post(CLIENTS.get(HttpClient.Version.HTTP_2), ecdhe(KeyIds.keyId(fresh.pair().getPublic())))
                .statusCode()).isEqualTo(200);
    }

    private static double deniedCount() throws Exception {
        return fixture.metrics().value("elastikey_ski_requests_total", "method", "ECDHE", "result", "request denied");
    }

    private static String ecdhe(String spki) {
        return """
                {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"AAECAw=="}""".formatted(spki);
    }

    @Test
    void burstBeyondTheWorkerQueueIsAnsweredOverloaded() throws Exception {
        HttpClient client = CLIENTS.get(HttpClient.Version.HTTP_2);
        TestKey key = KEYS.get(KeyType.RSA_4096);
        byte[] premaster = randomBytes(48);
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, key.pair().getPublic());
        String json = """
                {"protocol":"TLS 1.2","method":"RSA","spki":"%s","input":"%s"}"""
                .formatted(keyId(KeyType.RSA_4096), base64(cipher.doFinal(premaster)));
        // Once, so the key is parsed and cached and the burst meets the crypto queue, not the key loader.
        assertThat(output(fixture.post(client, json))).isEqualTo(premaster);
        double overloadedBefore = fixture.metrics().value("elastikey_ski_requests_total",
                "method", "RSA", "result", "overloaded");

        int overloaded = 0;
        int ok = 0;
        // A burst of 128 on one HTTP/2 connection overflows a queue of one many times over; a few rounds allow
        // for a scheduler that happens to deliver one burst slowly.
        for (int round = 0; round < 5 && overloaded == 0; round++) {
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 128; i++) {
                answers.add(client.sendAsync(fixture.request("/").header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                if (response.statusCode() == 503) {
                    assertAnswer(response, 503, OVERLOADED);
                    overloaded++;
                } else {
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                    assertThat(output(response)).isEqualTo(premaster);
                    ok++;
                }
            }
        }

        assertThat(overloaded).as("503 answers").isPositive();
        assertThat(ok).as("200 answers").isPositive();
        int expected = overloaded;
        KeyServerFixture.await("every 503 is counted", () -> fixture.metrics().value("elastikey_ski_requests_total",
                "method", "RSA", "result", "overloaded") - overloadedBefore == expected);
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void otherMethodsThanPostAreAnswered405WithAllow(HttpClient.Version version) throws Exception {
        for (HttpRequest request : List.of(
                fixture.request("/").GET().build(),
                fixture.request("/").DELETE().build(),
                fixture.request("/?a=b").GET().build(),
                fixture.request("/").header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(goodJson())).build())) {
            HttpResponse<String> response = fixture.send(CLIENTS.get(version), request);
            assertAnswer(response, 405, MALFORMED);
            assertThat(response.headers().allValues("allow")).as(request.method()).containsExactly("POST");
        }
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void pathOtherThanRootIsAnswered404WhateverTheMethod(HttpClient.Version version) throws Exception {
        for (String path : List.of("/ski", "/v1/", "/index.html")) {
            HttpResponse<String> response = fixture.send(CLIENTS.get(version), fixture.request(path)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());
            assertAnswer(response, 404, MALFORMED);
            assertAnswer(fixture.send(CLIENTS.get(version), fixture.request(path).GET().build()), 404, MALFORMED);
        }
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void contentTypeOtherThanJsonIsAnswered415(HttpClient.Version version) throws Exception {
        for (String type : List.of("text/plain", "application/x-www-form-urlencoded", "application/jsonp")) {
            HttpResponse<String> response = fixture.send(CLIENTS.get(version), fixture.request("/")
                    .header("Content-Type", type)
                    .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());
            assertAnswer(response, 415, MALFORMED);
        }
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void jsonWithParametersOrNoContentTypeIsServed(HttpClient.Version version) throws Exception {
        HttpResponse<String> withCharset = fixture.send(CLIENTS.get(version), fixture.request("/")
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());
        HttpResponse<String> otherCase = fixture.send(CLIENTS.get(version), fixture.request("/")
                .header("Content-Type", "Application/JSON")
                .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());
        HttpResponse<String> withoutType = fixture.send(CLIENTS.get(version), fixture.request("/")
                .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());

        assertThat(withCharset.statusCode()).as(withCharset.body()).isEqualTo(200);
        assertThat(otherCase.statusCode()).as(otherCase.body()).isEqualTo(200);
        assertThat(withoutType.statusCode()).as(withoutType.body()).isEqualTo(200);
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void bodyOverTheLimitIsAnswered413(HttpClient.Version version) throws Exception {
        HttpResponse<String> before = fixture.post(CLIENTS.get(version), goodJson());

        HttpResponse<String> response = fixture.post(CLIENTS.get(version), oversizedJson());

        assertAnswer(response, 413, MALFORMED);
        HttpResponse<String> after = fixture.post(CLIENTS.get(version), goodJson());
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(after.sslSession().orElseThrow().getId()).as("on the same connection")
                .isEqualTo(before.sslSession().orElseThrow().getId());
    }

    @ParameterizedTest
    @EnumSource(HttpClient.Version.class)
    void bodyJustUnderTheLimitIsServed(HttpClient.Version version) throws Exception {
        String good = goodJson();
        String json = good.replace("{", "{\"padding\":\"" + "x".repeat(BODY_LIMIT - good.length() - 20) + "\",");
        assertThat(json.length()).isLessThanOrEqualTo(BODY_LIMIT);

        HttpResponse<String> response = fixture.post(CLIENTS.get(version), json);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    @Test
    void headerOverTheLimitIsAnswered431ThenClosed() throws Exception {
        String request = RawHttp.post(goodJson()).replace("\r\n\r\n",
                "\r\nX-Filler: " + "y".repeat(HEADER_LIMIT + 100) + "\r\n\r\n");

        RawHttp.Answer answer = exchangeUntilClosed(request);

        assertThat(answer.status()).as(answer.head()).isEqualTo(431);
        assertThat(answer.body()).isEqualTo(MALFORMED);
        assertThat(answer.header("Connection")).as("announces the close").isEqualTo("close");
    }

    /**
     * The server answers an over-long header before its client has sent the body; a client slow to send it (a
     * loaded machine, a slow link) must still find the answer, not a connection reset under it.
     */
    @Test
    void aClientStillSendingAfterThe431ReadsItsAnswer() throws Exception {
        int chunks = 15;
        String head = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                + chunks * 100 + "\r\nX-Filler: " + "y".repeat(HEADER_LIMIT + 100) + "\r\n\r\n";

        RawHttp.Answer answer;
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, head);
            for (int i = 0; i < chunks; i++) { // 1.5 s of body, three times what the server once lingered
                Thread.sleep(100);
                RawHttp.write(socket, " ".repeat(100));
            }
            answer = RawHttp.readUntilClosed(socket);
        }

        assertThat(answer.status()).as(answer.head()).isEqualTo(431);
        assertThat(answer.body()).isEqualTo(MALFORMED);
    }

    @Test
    void headerOverTheLimitIsAnswered431ToTheJdkClient() throws Exception {
        HttpResponse<String> response = fixture.send(CLIENTS.get(HttpClient.Version.HTTP_1_1), fixture.request("/")
                .header("Content-Type", "application/json")
                .header("X-Filler", "y".repeat(HEADER_LIMIT + 100))
                .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());

        assertAnswer(response, 431, MALFORMED);
    }

    @Test
    void headerJustOverTheLimitOverHttp2IsAnswered431OnAConnectionThatStays() throws Exception {
        HttpClient client = CLIENTS.get(HttpClient.Version.HTTP_2);
        HttpResponse<String> before = fixture.post(client, goodJson());
        double undecoded = undecodedRequests();

        // Netty's HTTP/2 codec answers this (no SKI handler sees the stream); SkiHttp2FrameCodec gives it the body.
        HttpResponse<String> response;
        String log;
        try (LogCapture logs = LogCapture.asConfigured()) {
            response = fixture.send(client, fixture.request("/")
                    .header("Content-Type", "application/json")
                    .header("X-Filler", "y".repeat(HEADER_LIMIT + 100))
                    .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build());
            assertAudited(undecoded);
            log = logs.text();
        }

        assertAnswer(response, 431, MALFORMED);
        assertThat(log).as("no stack trace in the log").doesNotContain("\tat ");
        HttpResponse<String> after = fixture.post(client, goodJson());
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(after.sslSession().orElseThrow().getId()).as("the same connection")
                .isEqualTo(before.sslSession().orElseThrow().getId());
    }

    @Test
    void headerFarOverTheLimitOverHttp2ClosesTheConnection() {
        // Beyond a quarter over the limit Netty's codec treats the headers as an attack: GOAWAY. The next
        // request (the check after each test) opens a new connection.
        assertThatThrownBy(() -> fixture.send(CLIENTS.get(HttpClient.Version.HTTP_2), fixture.request("/")
                .header("Content-Type", "application/json")
                .header("X-Filler", "y".repeat(4 * HEADER_LIMIT))
                .POST(HttpRequest.BodyPublishers.ofString(goodJson())).build()))
                .isInstanceOf(IOException.class);
    }

    @Test
    void unparsableHttpIsAnswered400ThenClosed() throws Exception {
        RawHttp.Answer answer = exchangeUntilClosed("THIS IS NOT HTTP\r\n\r\n");

        assertThat(answer.status()).as(answer.head()).isEqualTo(400);
        assertThat(answer.body()).isEqualTo(MALFORMED);
        assertThat(answer.header("Connection")).as("announces the close").isEqualTo("close");
    }

    @Test
    void bodyOverTheLimitIsAnswered413AndTheConnectionGoesOn() throws Exception {
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, RawHttp.post(oversizedJson()) + RawHttp.post(goodJson()));

            RawHttp.Answer tooLarge = RawHttp.readAnswer(socket);
            RawHttp.Answer next = RawHttp.readAnswer(socket);

            assertThat(tooLarge.status()).as(tooLarge.head()).isEqualTo(413);
            assertThat(tooLarge.body()).isEqualTo(MALFORMED);
            assertThat(tooLarge.header("Connection")).isNull();
            assertThat(next.status()).as(next.head()).isEqualTo(200);
        }
    }

    @Test
    void bodyOverTheLimitIsAnsweredInRequestOrder() throws Exception {
        // An RSA-4096 decryption takes a while on the worker; the 413 behind it must wait its turn.
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, RawHttp.post(slowJson()) + RawHttp.post(oversizedJson()));

            RawHttp.Answer first = RawHttp.readAnswer(socket);
            RawHttp.Answer second = RawHttp.readAnswer(socket);

            assertThat(first.status()).as(first.head()).isEqualTo(200);
            assertThat(second.status()).as(second.head()).isEqualTo(413);
        }
    }

    @Test
    void bodyOverTheLimitWithConnectionCloseIsAnswered413ThenClosed() throws Exception {
        String request = RawHttp.post(oversizedJson()).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n");

        RawHttp.Answer answer = exchangeUntilClosed(request);

        assertThat(answer.status()).as(answer.head()).isEqualTo(413);
        assertThat(answer.body()).isEqualTo(MALFORMED);
        assertThat(answer.header("Connection")).isEqualTo("close");
    }

    @Test
    void expectContinueWithABodyOverTheLimitIsAnswered413AsSkiJsonAndAuditedThenClosed() throws Exception {
        double undecoded = undecodedRequests();

        // The head alone: a client that expects 100 Continue waits before it sends the body.
        RawHttp.Answer answer = exchangeUntilClosed(expectContinueHead(BODY_LIMIT + 1));

        assertThat(answer.status()).as(answer.head()).isEqualTo(413);
        assertThat(answer.body()).isEqualTo(MALFORMED);
        assertThat(answer.header("Content-Type")).isEqualTo("application/json");
        assertThat(answer.header("Connection")).as("announces the close: the body may follow or not")
                .isEqualTo("close");
        assertAudited(undecoded);
    }

    @Test
    void expectContinueWithABodyOverTheLimitIsAnsweredInRequestOrder() throws Exception {
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, RawHttp.post(slowJson()) + expectContinueHead(BODY_LIMIT + 1));

            RawHttp.Answer first = RawHttp.readAnswer(socket);
            RawHttp.Answer second = RawHttp.readAnswer(socket);

            assertThat(first.status()).as(first.head()).isEqualTo(200);
            assertThat(second.status()).as(second.head()).isEqualTo(413);
            assertThat(second.body()).isEqualTo(MALFORMED);
        }
    }

    @Test
    void expectContinueWithABodyWithinTheLimitIsServed() throws Exception {
        String json = goodJson();
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, expectContinueHead(json.length()));
            RawHttp.Answer proceed = RawHttp.readHead(socket);
            RawHttp.write(socket, json);
            RawHttp.Answer answer = RawHttp.readAnswer(socket);

            assertThat(proceed.status()).as(proceed.head()).isEqualTo(100);
            assertThat(answer.status()).as(answer.head()).isEqualTo(200);
        }
    }

    @Test
    void anUnknownExpectationIsAnswered417AsSkiJsonAndAuditedInOrderOnAConnectionThatGoesOn() throws Exception {
        double undecoded = undecodedRequests();
        String unknown = RawHttp.post(goodJson()).replace("\r\n\r\n", "\r\nExpect: a-pony\r\n\r\n");
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, RawHttp.post(slowJson()) + unknown + RawHttp.post(goodJson()));

            RawHttp.Answer first = RawHttp.readAnswer(socket);
            RawHttp.Answer refused = RawHttp.readAnswer(socket);
            RawHttp.Answer next = RawHttp.readAnswer(socket);

            assertThat(first.status()).as(first.head()).isEqualTo(200);
            assertThat(refused.status()).as(refused.head()).isEqualTo(417);
            assertThat(refused.body()).isEqualTo(MALFORMED);
            assertThat(refused.header("Connection")).isNull();
            // The fixture has one crypto worker and a queue of one: when the worker has not yet taken the slow job
            // as the third request arrives (a loaded machine, once in a clean-clone run), that one is answered
            // 503 overloaded. Either answer, in order on the same connection, shows the connection went on.
            assertThat(next.status()).as(next.head()).isIn(200, 503);
            assertThat(next.body()).satisfiesAnyOf(body -> assertThat(body).startsWith("{\"output\":\""),
                    body -> assertThat(body).isEqualTo(OVERLOADED));
        }
        assertAudited(undecoded);
    }

    @Test
    void goodRequestsOverARawConnectionAreAnsweredOnOneConnection() throws Exception {
        // The control for the raw tests above: the same reader sees 200s and the server keeps the connection.
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            for (int i = 0; i < 2; i++) {
                RawHttp.write(socket, RawHttp.post(goodJson()));
                RawHttp.Answer answer = RawHttp.readAnswer(socket);
                assertThat(answer.status()).as(answer.head()).isEqualTo(200);
                assertThat(answer.body()).startsWith("{\"output\":\"");
            }
        }
    }

    private static void assertGoodRequestSucceeds(HttpClient client) throws Exception {
        byte[] data = randomBytes(64);
        HttpResponse<String> response = fixture.post(client, """
                {"protocol":"TLS 1.2","method":"ECDHE","hash":"SHA-256","spki":"%s","input":"%s"}"""
                .formatted(keyId(KeyType.EC_P256), base64(data)));
        assertThat(response.statusCode()).as("a good request afterwards: " + response.body()).isEqualTo(200);
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(KEYS.get(KeyType.EC_P256).pair().getPublic());
        verifier.update(data);
        assertThat(verifier.verify(output(response))).isTrue();
    }

    private static void assertAnswer(HttpResponse<String> response, int status, String body) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.body()).isEqualTo(body);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    }

    private static String goodJson() {
        return """
                {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"AAECAw=="}""".formatted(keyId(KeyType.EC_P256));
    }

    /** A valid request padded with an unknown field (which the server would skip) past limits.body. */
    private static String oversizedJson() {
        return goodJson().replace("{", "{\"padding\":\"" + "x".repeat(BODY_LIMIT) + "\",");
    }

    /** A request that takes a while on the worker (an RSA-4096 decryption): answers behind it must wait. */
    private static String slowJson() {
        return """
                {"method":"RSA-RAW","spki":"%s","input":"%s"}""".formatted(keyId(KeyType.RSA_4096),
                base64(unsigned(BigInteger.TWO, 512)));
    }

    /** The head of a JSON {@code POST /} announcing {@code length} bytes and expecting {@code 100 Continue}. */
    private static String expectContinueHead(int length) {
        return "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                + "Content-Length: " + length + "\r\n\r\n";
    }

    /** Requests answered before their method was known: what the audit and metrics count for an envelope error. */
    private static double undecodedRequests() throws Exception {
        return fixture.metrics().value("elastikey_ski_requests_total", "method", "unknown", "result",
                "malformed request");
    }

    /** Exactly one more undecoded request counted than {@code before}: the answer went through the request log. */
    private static void assertAudited(double before) throws Exception {
        KeyServerFixture.await("the answer in the request log", () -> undecodedRequests() > before);
        assertThat(undecodedRequests()).isEqualTo(before + 1);
    }

    private static String keyId(KeyType type) {
        return KeyIds.keyId(KEYS.get(type).pair().getPublic());
    }

    private static byte[] unsigned(BigInteger value, int length) {
        byte[] bytes = value.toByteArray();
        byte[] out = new byte[length];
        int copy = Math.min(bytes.length, length);
        System.arraycopy(bytes, bytes.length - copy, out, length - copy, copy);
        return out;
    }

    /** Sends {@code request} on a new raw TLS connection and reads the answer until the server closes. */
    private static RawHttp.Answer exchangeUntilClosed(String request) throws Exception {
        try (SSLSocket socket = fixture.connect(fixture.tls(fixture.pki().client()))) {
            RawHttp.write(socket, request);
            return RawHttp.readUntilClosed(socket);
        }
    }
}
