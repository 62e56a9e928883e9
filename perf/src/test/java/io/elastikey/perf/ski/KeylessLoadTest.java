package io.elastikey.perf.ski;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.KeyServer;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.perf.handshake.TestKeyData;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code loadgen keyless} against a real key server's Keyless endpoint: pipelined requests on two connections, every
 * answer checked against the public key.
 */
class KeylessLoadTest {
    @TempDir
    static Path dir;
    private static TestKeyData data;
    private static KeyServer server;
    private static Path keysFile;

    @BeforeAll
    static void start() throws Exception {
        Path dataDir = dir.resolve("data");
        data = TestKeyData.create(dataDir, List.of(KeyType.EC_P256, KeyType.EC_P384, KeyType.RSA_2048));
        keysFile = dir.resolve("keys.pem");
        PemFiles.writeCertificates(keysFile, new ArrayList<>(data.certificates().values()));
        server = KeyServer.start(KeyServerConfig.from(new ConfigSource(Map.of("data", dataDir.toString(),
                "listen", "127.0.0.1:0", "admin.listen", "127.0.0.1:0", "keyless.listen", "127.0.0.1:0",
                "keys.expected", "4096", "warmup.exercise", "0s", "warmup.requests", "0s", "dev", "true"), Map.of(), null)));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"ECDSA-DIGEST, SHA-256, 2", "ECDSA-DIGEST, MD5-SHA1, 2", "RSA-PSS-DIGEST, SHA-384, 1",
            "RSA-PKCS1-DIGEST, SHA-512, 1", "SIGN, SHA-256, 3", "RSA-RAW, SHA-256, 1"})
    void aClosedLoopKeylessRunIsAnsweredAndEveryAnswerVerifies(String method, String hash, int keys) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        SkiLoadGenerator generator = new SkiLoadGenerator(SkiLoadGenerator.Protocol.KEYLESS)
                .printTo(new PrintStream(text, true, StandardCharsets.UTF_8));

        int status = new CommandLine(generator).execute("--target", "127.0.0.1:" + server.keylessAddress().getPort(),
                "--pki", data.pki().directory().toString(), "--server-name", "localhost", "--keys", keysFile.toString(),
                "--method", method, "--hash", hash, "--key-order", "random", "--closed-loop", "--concurrency", "16",
                "--connections", "2", "--duration", "700ms", "--warmup", "0", "--verify-sample", "1");

        LoadReport report = generator.report();
        String output = text.toString(StandardCharsets.UTF_8);
        assertThat(status).as(output).isZero();
        assertThat(output).contains("Keyless " + method).contains(keys + " key(s)");
        assertThat(report.answered()).isPositive();
        assertThat(report.errors()).isEmpty();
        assertThat(report.verified()).isEqualTo(report.answered());
        assertThat(report.verifyFailures()).isZero();
    }
}
