// KeysOnARunningServerTest -- the keys commands against a running key server: run inside it over its control socket.
package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elastikey.keyserver.audit.AuditLog;
import io.elastikey.keyserver.audit.AuditTesting;
import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.keyserver.cli.KeysCommand;
import io.elastikey.keyserver.cli.Progress;
import io.elastikey.keyserver.cli.RecordingProgress;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.store.elastic.IdlePriority;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PublicKey;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class KeysOnARunningServerTest {
    @TempDir
    Path tmp;
    KeyServerFixture fixture;
    TestKey resident;
    HttpClient client;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws Exception {
        fixture = KeyServerFixture.create(tmp.resolve("data"), Map.of());
        resident = fixture.addNewKey(KeyType.EC_P256, Set.of());
        fixture.start();
        client = fixture.client(HttpClient.Version.HTTP_2);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    Result keys(Progress.Factory progress, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var commandLine = KeysCommand.commandLine(progress);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, "--data");
        all.add(2, fixture.dataDir().toString());
        return new Result(commandLine.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    }

    Result keys(String... args) {
        return keys(Progress.NONE, args);
    }

    HttpResponse<String> sign(PublicKey key, byte[] content) throws Exception {
        return fixture.post(client, """
                {"protocol":"TLS 1.3","method":"SIGN","scheme":"ecdsa_secp256r1_sha256","spki":"%s","input":"%s"}"""
                .formatted(KeyIds.keyId(key), Base64.getEncoder().encodeToString(content)));
    }

    static boolean verifies(PublicKey key, byte[] content, HttpResponse<String> answer) throws Exception {
        byte[] signature = Base64.getDecoder().decode(new ObjectMapper().readTree(answer.body()).get("output")
                .asText());
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(key);
        verifier.update(content);
        return verifier.verify(signature);
    }

    /** A path to {@code file} relative to this process's working directory, as an operator would type it. */
    static String relative(Path file) {
        return Path.of("").toAbsolutePath().relativize(file.toAbsolutePath()).toString();
    }

    @Test
    void aKeyImportedWhileTheServerRunsIsServedAtOnceWithoutARestart() throws Exception {
        IssuedCertificate added = fixture.pki().ca().issueServer("added.example.test", List.of("added.example.test"),
                KeyType.EC_P256, Validity.days(30));
        PemFiles.writePrivateKey(tmp.resolve("added.key"), added.privateKey());
        PemFiles.writeCertificates(tmp.resolve("added.pem"), added.chain());
        byte[] content = "a handshake's transcript".getBytes(StandardCharsets.UTF_8);
        assertThat(sign(added.certificate().getPublicKey(), content).statusCode()).isEqualTo(404);

        RecordingProgress progress = new RecordingProgress();
        Result imported = keys(progress.factory(), "import", relative(tmp.resolve("added.key")),
                relative(tmp.resolve("added.pem")), "--tag", "late");

        assertThat(imported.code()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("imported 1 keys (1 certificates) from 2 files; the store holds 2 keys")
                .contains("the running key server serves them now (1 of 1 cached at once)");
        assertThat(progress.startsAndFinishes()).containsExactly("start importing 1 keys", "finish 1");
        HttpResponse<String> answer = sign(added.certificate().getPublicKey(), content);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(verifies(added.certificate().getPublicKey(), content, answer)).isTrue();
        Result listed = keys("list", "--tag", "late");
        assertThat(listed.out()).contains(KeyIds.keyId(added.certificate().getPublicKey())).contains("1 of 2 keys");
    }

    @Test
    void aKeyRemovedWhileTheServerRunsIsRefusedAtOnceThoughItWasCached() throws Exception {
        byte[] content = "before".getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> before = sign(resident.pair().getPublic(), content);
        assertThat(before.statusCode()).isEqualTo(200);
        assertThat(verifies(resident.pair().getPublic(), content, before)).isTrue();

        String keyId = KeyIds.keyId(resident.pair().getPublic());
        Result removed = keys("remove", keyId);

        assertThat(removed.code()).as(removed.err()).isZero();
        assertThat(removed.out()).isEqualTo("removed " + keyId + System.lineSeparator());
        HttpResponse<String> after = sign(resident.pair().getPublic(), content);
        assertThat(after.statusCode()).as(after.body()).isEqualTo(404);
        assertThat(keys("count").out().strip()).isEqualTo("0");
    }

    @Test
    void aPasswordProtectedPkcs12ImportGoesThroughWithItsPassword() throws Exception {
        IssuedCertificate added = fixture.pki().ca().issueServer("p12.example.test", List.of("p12.example.test"),
                KeyType.EC_P256, Validity.days(30));
        KeyStore bundle = KeyStore.getInstance("PKCS12");
        bundle.load(null, null);
        bundle.setKeyEntry("server", added.privateKey(), "s3cret".toCharArray(), added.chainArray());
        Path file = tmp.resolve("bundle.p12");
        try (var out = Files.newOutputStream(file)) {
            bundle.store(out, "s3cret".toCharArray());
        }

        Result wrong = keys("import", file.toString(), "--password=wrong");
        Result right = keys("import", file.toString(), "--password=s3cret");

        assertThat(wrong.code()).isEqualTo(1);
        assertThat(wrong.err()).startsWith("elastikey keys import: ");
        assertThat(right.code()).as(right.err()).isZero();
        byte[] content = {1, 2, 3};
        assertThat(verifies(added.certificate().getPublicKey(), content,
                sign(added.certificate().getPublicKey(), content))).isTrue();
    }

    @Test
    void everyKeyACommandChangesLeavesAnAuditLineNamingTheUserWhoRanItAndNothingOfTheCommandLine() throws Exception {
        Logger audit = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER_NAME);
        Level level = audit.getLevel();
        boolean additive = audit.isAdditive();
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        AuditTesting.attach(audit, appender);
        try {
            IssuedCertificate added = fixture.pki().ca().issueServer("audited.example.test",
                    List.of("audited.example.test"), KeyType.EC_P256, Validity.days(30));
            PemFiles.writePrivateKey(tmp.resolve("audited.key"), added.privateKey());
            PemFiles.writeCertificates(tmp.resolve("audited.pem"), added.chain());
            String addedId = KeyIds.keyId(added.certificate().getPublicKey());
            String residentId = KeyIds.keyId(resident.pair().getPublic());

            assertThat(keys("import", tmp.resolve("audited.key").toString(), tmp.resolve("audited.pem").toString())
                    .code()).isZero();
            assertThat(keys("import", tmp.resolve("audited.key").toString(), tmp.resolve("audited.pem").toString(),
                    "--tag", "again").code()).isZero();
            assertThat(keys("remove", residentId, "ab".repeat(32)).code()).isEqualTo(1); // the second names no key

            List<JsonNode> changes = new ArrayList<>();
            for (String text : AuditTesting.lines(appender)) {
                JsonNode line = new ObjectMapper().readTree(text);
                if (line.get("protocol").asText().equals("keys")) {
                    changes.add(line);
                }
                assertThat(text).doesNotContain("audited.key").doesNotContain("PRIVATE");
            }
            assertThat(changes).extracting(line -> line.get("method").asText() + " " + line.get("key").asText())
                    .containsExactly("ADD-KEY " + addedId, "UPDATE-KEY " + addedId, "REMOVE-KEY " + residentId);
            assertThat(changes).allSatisfy(line -> {
                assertThat(line.get("client").asText()).isEqualTo("user " + System.getProperty("user.name"));
                assertThat(line.get("remote").asText()).isEqualTo(fixture.dataDir().resolve("keyserver.sock")
                        .toString());
                assertThat(line.get("result").asText()).isEqualTo("ok");
            });
        } finally {
            audit.detachAppender(appender);
            audit.setLevel(level);
            audit.setAdditive(additive);
        }
    }

    @Test
    void keysGeneratedInsideAServingServerAreMadeAtIdlePrioritySoAnswersGoFirst() throws Exception {
        assumeThat(IdlePriority.currentThreadId()).as("/proc/thread-self").isNotNull();
        assumeThat(Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, "chrt"))))
                .as("chrt on the PATH").isTrue();
        Set<Integer> policies = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean generating = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread watcher = new Thread(() -> {
            while (generating.get()) {
                try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                    tasks.forEach(task -> {
                        try {
                            if (Files.readString(task.resolve("comm")).strip().equals("keys-generate")) {
                                policies.add(IdlePriority.policyOf(task.getFileName().toString()));
                            }
                        } catch (java.io.IOException e) {
                            // the thread ended meanwhile
                        }
                    });
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        watcher.start();
        Result generated;
        try {
            generated = keys("generate", "--count", "3000", "--type", "ec256");
        } finally {
            generating.set(false);
            watcher.join();
        }

        assertThat(generated.code()).as(generated.err()).isZero();
        assertThat(keys("count").out().strip()).isEqualTo("3001");
        assertThat(policies).as("scheduling policies seen on keys-generate threads").contains(5); // SCHED_IDLE
    }

    @Test
    void errorsAndExitStatusComeBackAsFromALocalCommand() {
        String unknown = "ab".repeat(20);
        Result missing = keys("remove", unknown);

        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.out()).isEmpty();
        assertThat(missing.err()).isEqualTo("elastikey keys remove: no key has the identifier " + unknown
                + System.lineSeparator());
        Result noFile = keys("import", tmp.resolve("absent.pem").toString());
        assertThat(noFile.code()).isEqualTo(1);
        assertThat(noFile.err()).contains("absent.pem");
    }

    @Test
    void aCommandMeantForAnotherStoreIsRefusedNotRunOnThisOne() {
        Result other = keys("count", "--store", tmp.resolve("elsewhere").toString());

        assertThat(other.code()).isEqualTo(1);
        assertThat(other.err()).contains("this key server serves the keys in " + fixture.dataDir().resolve("keys"))
                .contains("elsewhere");
        assertThat(Files.exists(tmp.resolve("elsewhere"))).isFalse();
    }

    @Test
    void theSocketIsOwnerOnlyAndLeavesWithTheServerAfterWhichCommandsOpenTheStoreThemselves() throws Exception {
        Path socket = fixture.dataDir().resolve("keyserver.sock");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");

        fixture.stop();

        assertThat(socket).doesNotExist();
        Result local = keys("count");
        assertThat(local.code()).as(local.err()).isZero();
        assertThat(local.out().strip()).isEqualTo("1");
    }

    @Test
    void bytesThatAreNotACommandAreRefusedAndTheNextCommandIsServed() throws Exception {
        Path socket = fixture.dataDir().resolve("keyserver.sock");
        String refusal = rawExchange(socket, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(refusal).isEqualTo("exit 1: elastikey keys: refused: not a keys command (bad magic); is this an "
                + "Elastikey client of the same version?\n");

        byte[] tooMany = new byte[6 + 4 + 1 + 4];
        System.arraycopy("EKCTL1".getBytes(StandardCharsets.US_ASCII), 0, tooMany, 0, 6);
        tooMany[9] = 1; // the store: one byte
        tooMany[10] = 'x';
        tooMany[11] = 0x7f; // then 2^31 - 1 arguments
        tooMany[12] = (byte) 0xff;
        tooMany[13] = (byte) 0xff;
        tooMany[14] = (byte) 0xff;
        assertThat(rawExchange(socket, tooMany)).startsWith("exit 1: elastikey keys: refused: a command of "
                + "2147483647 arguments");

        assertThat(keys("count").out().strip()).isEqualTo("1");
    }

    @Test
    void connectionsThatNeverSendACommandDoNotHoldTheCommandsPlaces() throws Exception {
        Path socket = fixture.dataDir().resolve("keyserver.sock");
        List<SocketChannel> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) { // twice as many as commands may run at once
                SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                channel.connect(UnixDomainSocketAddress.of(socket));
                channel.write(java.nio.ByteBuffer.wrap("EKCTL1".getBytes(StandardCharsets.US_ASCII)));
                idle.add(channel);
            }

            Result counted = keys("count");

            assertThat(counted.code()).as(counted.err()).isZero();
            assertThat(counted.out().strip()).isEqualTo("1");
        } finally {
            for (SocketChannel channel : idle) {
                channel.close();
            }
        }
    }

    @Test
    void aSocketFileLeftByAKilledServerIsReplacedAtTheNextStart() throws Exception {
        fixture.stop();
        Path socket = fixture.dataDir().resolve("keyserver.sock");
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket)); // closed without removing its file, as SIGKILL leaves it
        }
        assertThat(socket).exists();

        fixture.start();

        assertThat(keys("count").out().strip()).isEqualTo("1");
    }

    @Test
    void aDefaultSocketThatCannotBeBoundLeavesTheServerServingWithoutOneButASetOneStopsTheStart() throws Exception {
        fixture.stop();
        Path deep = tmp.resolve("d".repeat(120)).resolve("data"); // past the 108 bytes of a socket path
        try (KeyServerFixture far = KeyServerFixture.create(deep, Map.of())) {
            TestKey key = far.addNewKey(KeyType.EC_P256, Set.of());
            far.start();
            assertThat(deep.resolve("keyserver.sock")).doesNotExist();
            HttpResponse<String> answer = far.post(far.client(HttpClient.Version.HTTP_1_1), """
                    {"protocol":"TLS 1.3","method":"SIGN","scheme":"ecdsa_secp256r1_sha256","spki":"%s","input":"aGk="}"""
                    .formatted(KeyIds.keyId(key.pair().getPublic())));
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        }
        Path precious = tmp.resolve("precious.txt");
        Files.writeString(precious, "an operator's file, named as control.socket by mistake");
        try (KeyServerFixture wrong = KeyServerFixture.create(tmp.resolve("wrong"),
                Map.of("control.socket", precious.toString()))) {
            assertThatThrownBy(wrong::start).hasMessageContaining("exists and is not a socket; it is left alone");
        }
        assertThat(Files.readString(precious)).startsWith("an operator's file");
        Path explicit = tmp.resolve("d".repeat(120)).resolve("keys.sock");
        try (KeyServerFixture strict = KeyServerFixture.create(tmp.resolve("strict"),
                Map.of("control.socket", explicit.toString()))) {
            assertThatThrownBy(strict::start).hasMessageStartingWith("control.socket: cannot bind control socket "
                    + explicit);
        }
    }

    /** Sends {@code bytes} and reads the answer frames: "exit N: " and what came as standard error. */
    private static String rawExchange(Path socket, byte[] bytes) throws Exception {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            DataOutputStream out = new DataOutputStream(Channels.newOutputStream(channel));
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(Channels.newInputStream(channel));
            StringBuilder err = new StringBuilder();
            while (true) {
                byte type = in.readByte();
                byte[] payload = new byte[in.readInt()];
                in.readFully(payload);
                if (type == 'X') {
                    return "exit " + java.nio.ByteBuffer.wrap(payload).getInt() + ": " + err;
                }
                if (type == 'E') {
                    err.append(new String(payload, StandardCharsets.UTF_8));
                }
            }
        }
    }
}
