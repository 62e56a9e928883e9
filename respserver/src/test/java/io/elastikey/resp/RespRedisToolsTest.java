package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * redis-cli and redis-benchmark (installed by {@code ./elastikey test}) against a RespServer.
 * Functional only: the tools complete and the keys are there; no speed is asserted.
 */
class RespRedisToolsTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void toolsInstalled() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/redis-cli")) && Files.isExecutable(Path.of("/usr/bin/redis-benchmark")),
                "redis-cli and redis-benchmark are not installed (./elastikey test installs them)");
    }

    record Run(int exit, String output) {
    }

    private Run run(byte[] stdin, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "tool", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        Process p = pb.start();
        if (stdin != null) {
            p.getOutputStream().write(stdin);
        }
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", command) + " still running after 120 s");
        }
        return new Run(p.exitValue(), Files.readString(out));
    }

    private Run cli(RespFixture f, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(f.port())));
        cmd.addAll(List.of(args));
        return run(null, cmd.toArray(String[]::new));
    }

    @Test
    void redisCliSetGetAndInfo() throws Exception {
        try (RespFixture f = new RespFixture(dir.resolve("store"))) {
            assertThat(cli(f, "SET", "cli:k", "hello world").output().trim()).isEqualTo("OK");
            assertThat(cli(f, "GET", "cli:k").output().trim()).isEqualTo("hello world");
            assertThat(cli(f, "EXISTS", "cli:k").output().trim()).isEqualTo("1");
            assertThat(cli(f, "DBSIZE").output().trim()).isEqualTo("1");
            assertThat(cli(f, "INFO", "keyspace").output()).contains("db0:keys=1");
            assertThat(cli(f, "NOSUCH", "x").output()).contains("ERR unknown command 'NOSUCH'");
        }
    }

    @Test
    void redisCliPipeMassInsert() throws Exception {
        try (RespFixture f = new RespFixture(dir.resolve("store"))) {
            StringBuilder proto = new StringBuilder();
            for (int i = 0; i < 20_000; i++) {
                String key = "pipe:" + i;
                String value = "v" + i;
                proto.append("*3\r\n$3\r\nSET\r\n$").append(key.length()).append("\r\n").append(key)
                        .append("\r\n$").append(value.length()).append("\r\n").append(value).append("\r\n");
            }
            Run r = run(proto.toString().getBytes(StandardCharsets.US_ASCII),
                    "redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(f.port()), "--pipe");
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).contains("errors: 0, replies: 20000");
            assertThat(f.store.size()).isEqualTo(20_000);
            assertThat(new String(f.store.get("pipe:19999".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8))
                    .isEqualTo("v19999");
        }
    }

    @Test
    void redisBenchmarkCompletesAndItsKeysAreThere() throws Exception {
        try (RespFixture f = new RespFixture(dir.resolve("store"))) {
            for (String pipeline : List.of("1", "16")) {
                Run r = run(null, "redis-benchmark", "-h", "127.0.0.1", "-p", Integer.toString(f.port()),
                        "-t", "set,get", "-d", "100", "-n", "2000", "-r", "500", "-c", "10", "-P", pipeline, "-q");
                assertThat(r.exit()).as(r.output()).isZero();
                assertThat(r.output()).contains("SET: ", "GET: ").doesNotContain("ERR");
            }
            // Keys as redis-benchmark names them with -r: key:__rand_int__, 12 digits.
            assertThat(f.store.size()).isBetween(1L, 500L);
            byte[] any = new byte[1];
            f.store.forEach((k, v) -> {
                assertThat(new String(k, StandardCharsets.UTF_8)).matches("key:\\d{12}");
                assertThat(v).hasSize(100);
                any[0] = 1;
            });
            assertThat(any[0]).isEqualTo((byte) 1);
        }
    }
}
