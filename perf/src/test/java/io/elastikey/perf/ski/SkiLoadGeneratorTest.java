// SkiLoadGeneratorTest -- short real runs against a test key server over mutual TLS: counts, verification, results.
package io.elastikey.perf.ski;

import io.elastikey.perf.report.RunRecord;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.CannedAnswer;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiTestServer;
import picocli.CommandLine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkiLoadGeneratorTest {
    @TempDir
    static Path directory;
    private static DevPki pki;
    private static Path keysFile;
    private static TestKeyServer keyServer;

    private SkiTestServer server;
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    @BeforeAll
    static void issueKeys() throws Exception {
        pki = DevPki.loadOrCreate(directory.resolve("pki"));
        List<IssuedCertificate> keys = new ArrayList<>();
        for (KeyType type : List.of(KeyType.EC_P256, KeyType.RSA_2048, KeyType.EC_P256)) {
            keys.add(pki.ca().issueServer("site.example", List.of("site.example"), type, Validity.days(1)));
        }
        keysFile = directory.resolve("keys.pem");
        PemFiles.writeCertificates(keysFile, keys.stream().map(IssuedCertificate::certificate).toList());
        keyServer = new TestKeyServer(keys);
    }

    @BeforeEach
    void startServer() throws Exception {
        server = SkiTestServer.start(pki).behaviour(keyServer);
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void anOpenLoopRunSendsTheScheduleAndEveryAnswerVerifies() throws Exception {
        Path results = directory.resolve("results-open");

        int status = run("--rate", "200", "--duration", "1", "--warmup", "200ms", "--verify-sample", "1",
                "--connections", "2", "--result", results.toString());

        LoadReport report = lastReport;
        assertThat(status).as(text()).isZero();
        assertThat(report.sent()).isEqualTo(240);
        assertThat(report.answered()).isEqualTo(200);
        assertThat(report.errors()).isEmpty();
        assertThat(report.verified()).isEqualTo(200);
        assertThat(report.verifyFailures()).isZero();
        assertThat(report.latency().getTotalCount()).isEqualTo(200);
        assertThat(Files.readString(results.resolve(RunRecord.HISTOGRAM_FILE))).contains("Percentile");
        assertThat(Files.readString(results.resolve(RunRecord.SUMMARY_FILE)))
                .contains("\"answered\" : 200").contains("\"wrong\" : 0").contains("\"p99\"");
        assertThat(text()).contains("p99.9").contains("verified    200 answers: 0 wrong");
    }

    @Test
    void aClosedLoopRunOverHttp11DecryptsAndVerifies() throws Exception {
        int status = run("--closed-loop", "--concurrency", "4", "--duration", "700ms", "--warmup", "0",
                "--method", "RSA", "--http", "1.1", "--connections", "2", "--verify-sample", "1");

        LoadReport report = lastReport;
        assertThat(status).as(text()).isZero();
        assertThat(report.answered()).isPositive();
        assertThat(report.verifyFailures()).isZero();
        assertThat(report.verified()).isEqualTo(report.answered());
        assertThat(server.connectionsAccepted()).isEqualTo(2);
    }

    @Test
    void aKeyListWithAKeyLimitAndZipfOrderRunsOnTheFirstKeysAndEveryAnswerVerifies() throws Exception {
        Path keyList = directory.resolve("keys.txt");
        KeyListCommand.convert(keysFile, java.util.Map.of(keyList, java.util.Set.of()),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        int status = run("--keys", keyList.toString(), "--key-limit", "2", "--key-order", "zipf", "--method", "SIGN",
                "--rate", "200", "--duration", "1", "--warmup", "0", "--verify-sample", "1");

        assertThat(status).as(text()).isZero();
        assertThat(lastReport.answered()).isEqualTo(200);
        assertThat(lastReport.verifyFailures()).isZero();
        assertThat(lastReport.verified()).isEqualTo(200);
        assertThat(lastReport.description()).contains("over 2 key(s) [rsa2048, ec256] (zipf 1.1)");
        assertThat(lastReport.settings()).containsEntry("keys", 2).containsEntry("key_order", "zipf");
    }

    @Test
    void wrongAnswersAreCountedAndFailTheRun() throws Exception {
        server.behaviour(request -> CannedAnswer.output(new byte[72]));

        int status = run("--rate", "100", "--duration", "1", "--warmup", "0", "--verify-sample", "10",
                "--method", "SIGN");

        assertThat(status).isEqualTo(1);
        assertThat(lastReport.verified()).isEqualTo(10);
        assertThat(lastReport.verifyFailures()).isEqualTo(10);
    }

    @Test
    void errorAnswersAreCountedByKind() throws Exception {
        server.behaviour(request -> request.input()[0] % 2 == 0 ? CannedAnswer.error(SkiError.OVERLOADED)
                : keyServer.apply(request));

        run("--rate", "100", "--duration", "1", "--warmup", "0");

        assertThat(lastReport.errors()).containsOnlyKeys("overloaded (503)");
        assertThat(lastReport.errors().get("overloaded (503)") + lastReport.answered()).isEqualTo(100);
        assertThat(lastReport.latency().getTotalCount()).as("SKI errors are timed too").isEqualTo(100);
    }

    @Test
    void aServerThatCannotBeReachedEndsTheRunAtOnce() throws Exception {
        int port = server.address().getPort();
        server.close();

        int status = run("--target", "127.0.0.1:" + port, "--rate", "100", "--duration", "1");

        assertThat(status).isEqualTo(1);
        assertThat(text()).contains("cannot reach 127.0.0.1:" + port).contains("CONNECT_FAILED");
    }

    @Test
    void keysThatCannotServeTheMethodAreAUsageError() {
        int status = run("--method", "SIGN", "--scheme", "ed25519", "--duration", "1");

        assertThat(status).isEqualTo(2);
        assertThat(text()).contains("no key in the key file can serve SIGN with ed25519");
    }

    private LoadReport lastReport;

    private int run(String... options) {
        List<String> args = new ArrayList<>(List.of(options));
        if (!args.contains("--target")) {
            args.addAll(List.of("--target", "127.0.0.1:" + server.address().getPort()));
        }
        args.addAll(List.of("--pki", pki.directory().toString()));
        if (!args.contains("--keys")) {
            args.addAll(List.of("--keys", keysFile.toString()));
        }
        SkiLoadGenerator generator = new SkiLoadGenerator()
                .printTo(new PrintStream(output, true, StandardCharsets.UTF_8));
        int status = new CommandLine(generator).execute(args.toArray(String[]::new));
        lastReport = generator.report();
        return status;
    }

    private String text() {
        return output.toString(StandardCharsets.UTF_8);
    }
}
