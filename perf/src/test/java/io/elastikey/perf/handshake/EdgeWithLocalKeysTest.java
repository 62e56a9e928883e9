// EdgeWithLocalKeysTest -- the benchmark's baseline end to end: the edge's BoringSSL context signing with local keys.
package io.elastikey.perf.handshake;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.tls.EdgeTls;
import io.elastikey.edge.tls.KeyOperationListener;
import io.elastikey.edge.tls.RemoteKeyMethod;
import io.elastikey.protocol.pki.KeyType;
import picocli.CommandLine;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edge's TLS context ({@link EdgeTls}, the asynchronous private-key method {@link RemoteKeyMethod}) with
 * {@link LocalKeyOperations} behind it, loaded by the handshake load generator: every handshake's one private-key
 * operation (a TLS 1.3 signature, a TLS 1.2 RSA decryption) is answered from the key server's own repository.
 */
@Timeout(60)
class EdgeWithLocalKeysTest {
    @TempDir
    static Path data;
    private static TestKeyData keys;
    private static LocalKeyOperations local;
    private static EdgeTls edge;
    private static TestTlsServer server;
    private static final AtomicInteger signatures = new AtomicInteger();
    private static final AtomicInteger decryptions = new AtomicInteger();

    @BeforeAll
    static void startEdge() throws Exception {
        keys = TestKeyData.create(data, List.of(KeyType.EC_P256, KeyType.RSA_2048));
        local = new LocalKeyOperations(keys.config());
        KeyOperationListener counting = new KeyOperationListener() {
            @Override
            public void succeeded(Kind kind, long nanos) {
                (kind == Kind.SIGN ? signatures : decryptions).incrementAndGet();
            }
        };
        edge = new EdgeTls(EdgeConfig.of(Map.of("data", data.toString())), new RemoteKeyMethod(local, counting));
        server = new TestTlsServer(edge.context());
    }

    @AfterAll
    static void stopEdge() {
        server.close();
        edge.close();
        local.close();
    }

    @Test
    void fullTls13HandshakesSignWithTheLocalEcKey() {
        int before = signatures.get();

        HandshakeReport report = run("--server-name", TestKeyData.serverName(KeyType.EC_P256));

        assertThat(report.errors()).isEmpty();
        assertThat(report.full()).isPositive().isEqualTo(report.handshakes());
        assertThat(signatures.get() - before).as("one signature per full handshake, warm-up included")
                .isGreaterThanOrEqualTo((int) report.handshakes());
    }

    @Test
    void tls12RsaKeyExchangeDecryptsWithTheLocalRsaKey() {
        int before = decryptions.get();

        HandshakeReport report = run("--server-name", TestKeyData.serverName(KeyType.RSA_2048), "--tls", "1.2",
                "--cipher", "TLS_RSA_WITH_AES_128_GCM_SHA256");

        assertThat(report.errors()).isEmpty();
        assertThat(report.handshakes()).isPositive();
        assertThat(decryptions.get() - before).isGreaterThanOrEqualTo((int) report.handshakes());
    }

    @Test
    void resumedHandshakesNeedNoKey() {
        HandshakeReport report = run("--server-name", TestKeyData.serverName(KeyType.EC_P256), "--resume",
                "--request", "/ok");
        int signed = signatures.get();

        HandshakeReport again = run("--server-name", TestKeyData.serverName(KeyType.EC_P256), "--resume",
                "--request", "/ok");

        assertThat(report.errors()).isEmpty();
        assertThat(report.resumed()).isPositive().isEqualTo(report.handshakes());
        assertThat(signatures.get() - signed).as("only the second run's priming connections may sign")
                .isBetween(1, 2);
        assertThat(again.resumed()).isEqualTo(again.handshakes());
    }

    private HandshakeReport run(String... options) {
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of("--target", "127.0.0.1:" + server.port(), "--ca", keys.caFile().toString(),
                "--concurrency", "2", "--duration", "700ms", "--warmup", "0"));
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        HandshakeLoadGenerator generator = new HandshakeLoadGenerator()
                .printTo(new PrintStream(output, true, StandardCharsets.UTF_8));
        int status = new CommandLine(generator).execute(args.toArray(String[]::new));
        assertThat(status).as(output.toString(StandardCharsets.UTF_8)).isZero();
        return generator.report();
    }
}
