package io.elastikey.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.ski.SkiClient;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.elastikey.protocol.ski.SkiResponse;
import io.elastikey.protocol.ski.SkiTls;
import io.elastikey.protocol.tickets.TicketKey;
import io.elastikey.protocol.tickets.TicketKeySet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two edges of one key server share its session-ticket keys: a ticket from edge A resumes on edge B (no key-server
 * operation), until two of the key server's rotations have passed; and no ticket key is on any edge's disk. Edge A
 * fetches the keys over SKI, edge B over Keyless, so both ways of getting them are checked against each other. The key
 * server rotates every 3 s here so that the test sees rotations; the edges' own lifetime hint stays long, so the
 * client keeps offering the old ticket and it is the edge that refuses it.
 */
class FleetResumptionTest {
    @TempDir
    static Path root;
    static EdgeFixture suite;
    static KeyServer keyServer;
    static EdgeServer edgeA;
    static EdgeServer edgeB;

    @BeforeAll
    static void start() throws Exception {
        suite = EdgeFixture.create(root);
        keyServer = suite.startKeyServer(0, 0, Map.of("tickets.rotate", "3s"));
        SampleOrigin origin = suite.startOrigin();
        Map<String, String> edge = Map.of("cache.enabled", "false");
        edgeA = suite.startEdge(List.of(keyServer.address()), origin, edge);
        edgeB = suite.startEdge(List.of(keyServer.keylessAddress()), origin,
                Map.of("cache.enabled", "false", "keyservers.protocol", "keyless"));
        await("both edges hold the deployment's ticket keys",
                () -> edgeA.ticketKeyEpoch() != Long.MIN_VALUE && edgeB.ticketKeyEpoch() != Long.MIN_VALUE);
    }

    @AfterAll
    static void stop() {
        suite.close();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"ec.edge.test, -tls1_3, ", "rsa.edge.test, -tls1_2, ECDHE-RSA-AES128-GCM-SHA256"})
    void aTicketFromOneEdgeResumesOnTheOther(String name, String version, String cipher) throws Exception {
        String session = root.resolve("fleet-" + name + version).toString();
        Tools.Result first = Tools.sClient(suite, edgeA, name, version, cipher, session, null);
        assertThat(first.output()).contains("New, TLSv1.", "HTTP/1.1 200 OK");
        long operations = keyServerOperations();

        Tools.Result onB = Tools.sClient(suite, edgeB, name, version, cipher, null, session);

        assertThat(onB.output()).as(onB.output()).contains("Reused, TLSv1.", "HTTP/1.1 200 OK");
        assertThat(keyServerOperations()).isEqualTo(operations);
    }

    @Test
    void afterTwoRotationsTheTicketNoLongerResumes() throws Exception {
        String session = root.resolve("fleet-old").toString();
        Tools.Result first = Tools.sClient(suite, edgeA, "ec.edge.test", "-tls1_3", null, session, null);
        assertThat(first.output()).contains("New, TLSv1.3");
        long issuedUnder = edgeA.ticketKeyEpoch();

        await("edge B is two rotations further", () -> edgeB.ticketKeyEpoch() >= issuedUnder + 2);
        Tools.Result later = Tools.sClient(suite, edgeB, "ec.edge.test", "-tls1_3", null, null, session);

        assertThat(later.output()).as(later.output()).contains("New, TLSv1.3").contains("HTTP/1.1 200 OK");
    }

    @Test
    void noTicketKeyIsWrittenToAnEdgesDisk() throws Exception {
        TicketKeySet set = fetchTicketKeys();
        List<byte[]> secrets = new ArrayList<>();
        for (TicketKey key : set.keys()) {
            for (byte[] part : List.of(key.hmacKey(), key.aesKey())) {
                secrets.add(part);
                secrets.add(Base64.getEncoder().encodeToString(part).getBytes(StandardCharsets.US_ASCII));
                secrets.add(HexFormat.of().formatHex(part).getBytes(StandardCharsets.US_ASCII));
            }
        }
        List<Path> files;
        try (var walk = Files.walk(root.resolve("edge"))) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            byte[] content = Files.readAllBytes(file);
            for (byte[] secret : secrets) {
                assertThat(indexOf(content, secret)).as("%s holds a ticket key", file).isEqualTo(-1);
            }
        }
    }

    private static long keyServerOperations() throws Exception {
        return EdgeFixture.keyServerOperations(keyServer.adminAddress(), "ski")
                + EdgeFixture.keyServerOperations(keyServer.adminAddress(), "keyless");
    }

    private static TicketKeySet fetchTicketKeys() throws Exception {
        Path pki = suite.pki().directory();
        try (SkiClient client = SkiClient.create(SkiTls.clientContext(pki.resolve(DevPki.CLIENT_CERTIFICATE),
                        pki.resolve(DevPki.CLIENT_KEY), pki.resolve(DevPki.CA_CERTIFICATE), SkiHttpVersion.HTTP_2),
                keyServer.address(), SkiClientOptions.builder().serverName("localhost")
                        .requestTimeout(Duration.ofSeconds(10)).build())) {
            SkiResponse answer = client.exchange("GET", TicketKeySet.PATH, "application/json", new byte[0])
                    .get(10, TimeUnit.SECONDS);
            assertThat(answer.status()).as(answer.bodyText()).isEqualTo(200);
            return TicketKeySet.fromJson(answer.body());
        }
    }

    private static int indexOf(byte[] content, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= content.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (content[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting until " + what);
            }
            Thread.sleep(50);
        }
    }
}
