// HandshakeLoadGeneratorTest -- short runs against an in-process BoringSSL server: full, resumed, failures, results.
package io.elastikey.perf.handshake;

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
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import picocli.CommandLine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class HandshakeLoadGeneratorTest {
    @TempDir
    static Path directory;
    private static DevPki pki;
    private static DevPki otherPki;

    private TestTlsServer server;
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private HandshakeReport report;

    @BeforeAll
    static void issueCertificates() throws Exception {
        assertThat(OpenSsl.isAvailable()).as("netty-tcnative loads here").isTrue();
        pki = DevPki.loadOrCreate(directory.resolve("pki"));
        otherPki = DevPki.loadOrCreate(directory.resolve("other-pki"));
    }

    @BeforeEach
    void startServer() throws Exception {
        server = new TestTlsServer(SslContextBuilder.forServer(pki.server().privateKey(), pki.server().chain())
                .sslProvider(SslProvider.OPENSSL).protocols("TLSv1.3", "TLSv1.2").build());
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void withoutResumeEveryHandshakeIsFull() {
        int status = run("--concurrency", "4", "--duration", "1500ms", "--warmup", "300ms");

        assertThat(status).as(text()).isZero();
        assertThat(report.errors()).isEmpty();
        assertThat(report.handshakes()).isPositive().isEqualTo(report.attempts());
        assertThat(report.full()).isEqualTo(report.handshakes());
        assertThat(report.resumed()).isZero();
        assertThat(server.resumedHandshakes()).as("the server's view").isZero();
        assertThat(report.latency().getTotalCount()).isEqualTo(report.handshakes());
        assertThat(text()).contains("TLS 1.3 full handshakes").contains("handshakes/s").contains("p99.9")
                .contains("0 resumed");
    }

    @Test
    void withResumeUnderTls13AllButThePrimingHandshakesResume() {
        int status = run("--resume", "--request", "/ok", "--concurrency", "4", "--duration", "1500ms",
                "--warmup", "0");

        assertThat(status).as(text()).isZero();
        assertThat(report.errors()).isEmpty();
        assertThat(report.handshakes()).isPositive();
        assertThat(report.resumed()).isEqualTo(report.handshakes());
        assertThat(server.fullHandshakes()).as("only priming handshakes are full").isBetween(1, 4);
        assertThat(server.resumedHandshakes()).isGreaterThanOrEqualTo((int) report.resumed());
        assertThat(text()).contains("4 unrecorded connection(s) first to prime the session cache");
    }

    @Test
    void withResumeUnderTls12OneSessionServesEveryConnection() {
        int status = run("--resume", "--tls", "1.2", "--concurrency", "4", "--duration", "1s", "--warmup", "0");

        assertThat(status).as(text()).isZero();
        assertThat(report.errors()).isEmpty();
        assertThat(report.resumed()).isPositive().isEqualTo(report.handshakes());
        assertThat(server.fullHandshakes()).isEqualTo(1);
    }

    @Test
    void anOpenLoopRunStartsTheScheduleAndSavesTheResults() throws Exception {
        Path results = directory.resolve("results-open");

        int status = run("--rate", "100", "--duration", "1", "--warmup", "200ms", "--request", "/ok",
                "--result", results.toString());

        assertThat(status).as(text()).isZero();
        assertThat(report.attempts()).isEqualTo(100);
        assertThat(report.handshakes()).isEqualTo(100);
        assertThat(report.errors()).isEmpty();
        assertThat(Files.readString(results.resolve(RunRecord.HISTOGRAM_FILE))).contains("Percentile");
        assertThat(Files.readString(results.resolve(RunRecord.SUMMARY_FILE)))
                .contains("\"handshakes\" : 100").contains("\"throughput_per_second\"").contains("\"p99_9\"")
                .contains("\"resumption\"").contains("\"resumed\" : 0").contains("\"full\" : 100")
                .contains("\"mode\" : \"open-loop\"").contains("\"request\" : \"/ok\"");
    }

    @Test
    void errorAnswersToTheRequestAreCountedByStatus() {
        int status = run("--rate", "50", "--duration", "1", "--warmup", "0", "--request", "/missing");

        assertThat(status).as("the handshakes completed").isZero();
        assertThat(report.handshakes()).isEqualTo(50);
        assertThat(report.errors()).containsExactlyEntriesOf(java.util.Map.of("HTTP_404", 50L));
    }

    @Test
    void aCertificateFromAnotherCaFailsEveryHandshakeWithAClearKind() {
        int status = run(List.of("--ca", otherPki.directory().resolve(DevPki.CA_CERTIFICATE).toString()),
                "--concurrency", "2", "--duration", "500ms", "--warmup", "0");

        assertThat(status).isEqualTo(1);
        assertThat(report.handshakes()).isZero();
        assertThat(report.errors()).containsOnlyKeys("CERTIFICATE_NOT_TRUSTED");
        assertThat(report.errors().get("CERTIFICATE_NOT_TRUSTED")).isEqualTo(report.attempts()).isPositive();
    }

    @Test
    void aServerNameTheCertificateDoesNotCoverIsAMismatch() {
        run("--server-name", "elsewhere.example", "--concurrency", "1", "--duration", "300ms", "--warmup", "0");

        assertThat(report.handshakes()).isZero();
        assertThat(report.errors()).containsOnlyKeys("CERTIFICATE_NAME_MISMATCH");
    }

    @Test
    void insecureSkipsTheCertificateCheck() {
        int status = run(List.of("--insecure"), "--server-name", "elsewhere.example", "--concurrency", "1",
                "--duration", "300ms", "--warmup", "0");

        assertThat(status).as(text()).isZero();
        assertThat(report.errors()).isEmpty();
        assertThat(text()).contains("certificate not checked");
    }

    @Test
    void aNamesFileSpreadsConnectionsOverItsNamesEachWithItsOwnHost() throws Exception {
        Path names = Files.writeString(directory.resolve("names.txt"), "# edge names\na.test\n\n b.test \nc.test\n");
        int status = run(List.of("--insecure"), "--server-names", names.toString(), "--request", "/ok",
                "--concurrency", "4", "--duration", "1500ms", "--warmup", "0");

        assertThat(status).as(text()).isZero();
        assertThat(report.errors()).isEmpty();
        int port = server.port();
        assertThat(server.namesAndHosts()).containsExactlyInAnyOrder("a.test a.test:" + port,
                "b.test b.test:" + port, "c.test c.test:" + port);
        assertThat(text()).contains("server name one of 3 from " + names);
    }

    @Test
    void primingThatFailsEndsTheRunAtOnce() {
        int status = run(List.of("--ca", otherPki.directory().resolve(DevPki.CA_CERTIFICATE).toString()),
                "--resume", "--tls", "1.2", "--concurrency", "2", "--duration", "10");

        assertThat(status).isEqualTo(1);
        assertThat(text()).contains("priming the session cache with 1 connection(s)")
                .contains("CERTIFICATE_NOT_TRUSTED");
    }

    @Test
    void aServerThatIsNotThereCountsConnectFailures() {
        int port = server.port();
        server.close();

        int status = run("--target", "127.0.0.1:" + port, "--concurrency", "2", "--duration", "300ms",
                "--warmup", "0");

        assertThat(status).isEqualTo(1);
        assertThat(report.errors()).containsOnlyKeys("CONNECT_FAILED");
    }

    @Test
    void contradictoryOptionsAreUsageErrors() {
        assertThat(run(List.of(), "--duration", "1")).as("neither --ca nor --insecure").isEqualTo(2);
        assertThat(run("--cipher", "TLS_RSA_WITH_AES_128_GCM_SHA256")).as("--cipher under 1.3").isEqualTo(2);
        assertThat(run("--tls", "1.1")).isEqualTo(2);
        assertThat(run("--request", "ok")).isEqualTo(2);
        assertThat(run("--resume")).as("TLS 1.3 tickets come with a response").isEqualTo(2);
        assertThat(run("--tls", "1.2", "--cipher", "NO_SUCH_CIPHER")).isEqualTo(2);
        assertThat(run("--server-name", "a.test", "--server-names", "names.txt")).as("both").isEqualTo(2);
        assertThat(run(List.of("--insecure"), "--server-names", directory.resolve("none.txt").toString()))
                .as("a names file that is not there").isEqualTo(2);
        assertThat(text()).contains("give either --ca FILE or --insecure").contains("--cipher needs --tls 1.2")
                .contains("--resume with --tls 1.3 needs --request PATH")
                .contains("NO_SUCH_CIPHER").contains("give --server-name or --server-names, not both")
                .contains("cannot read --server-names " + directory.resolve("none.txt"));
    }

    private int run(String... options) {
        return run(List.of("--ca", pki.directory().resolve(DevPki.CA_CERTIFICATE).toString()), options);
    }

    private int run(List<String> trust, String... options) {
        List<String> args = new ArrayList<>(List.of(options));
        if (!args.contains("--target")) {
            args.addAll(List.of("--target", "127.0.0.1:" + server.port()));
        }
        if (!args.contains("--server-name") && !args.contains("--server-names")) {
            args.addAll(List.of("--server-name", "localhost"));
        }
        args.addAll(trust);
        PrintStream stream = new PrintStream(output, true, StandardCharsets.UTF_8);
        HandshakeLoadGenerator generator = new HandshakeLoadGenerator().printTo(stream);
        CommandLine command = new CommandLine(generator).setErr(new java.io.PrintWriter(stream, true));
        int status = command.execute(args.toArray(String[]::new));
        report = generator.report();
        return status;
    }

    private String text() {
        return output.toString(StandardCharsets.UTF_8);
    }
}
