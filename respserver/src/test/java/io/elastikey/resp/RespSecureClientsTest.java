// RespSecureClientsTest -- redis-cli and Lettuce authenticate and speak TLS to a RespServer as they do to Redis.
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.protocol.pki.DevPki;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ways clients present credentials: redis-cli {@code -a} and {@code --user --pass}, Lettuce
 * {@code redis://user:pass@host:port} (HELLO 3 with AUTH, NOPROTO, then AUTH in RESP2); and TLS:
 * redis-cli {@code --tls --cacert} and Lettuce {@code rediss://}, with the development PKI's
 * server certificate.
 */
class RespSecureClientsTest {
    @TempDir
    Path dir;

    private static RespUsers users() {
        return RespUsers.builder().requirePass("s3cret").user("alice:wonder:readwrite").build();
    }

    private RespFixture serve(RespUsers users, boolean tls) throws Exception {
        RespOptions.Builder options = RespOptions.builder().users(users).resizeBounds(RespFixture.smallBounds());
        if (tls) {
            DevPki pki = DevPki.loadOrCreate(dir.resolve("pki"));
            options.tls(RespTls.serverContext(pki.directory().resolve(DevPki.SERVER_CERTIFICATE),
                    pki.directory().resolve(DevPki.SERVER_KEY), null));
        }
        return new RespFixture(dir.resolve("store"), options.build(), "127.0.0.1");
    }

    @Test
    void redisCliWithAPasswordOrAUser() throws Exception {
        assumeRedisCli();
        try (RespFixture f = serve(users(), false)) {
            assertThat(cli(f, "SET", "k", "v")).contains("NOAUTH Authentication required.");
            assertThat(cli(f, "-a", "s3cret", "--no-auth-warning", "SET", "k", "v")).isEqualTo("OK");
            assertThat(cli(f, "-a", "wrong", "--no-auth-warning", "GET", "k"))
                    .contains("WRONGPASS invalid username-password pair or user is disabled.");
            assertThat(cli(f, "--user", "alice", "--pass", "wonder", "--no-auth-warning", "GET", "k")).isEqualTo("v");
            assertThat(cli(f, "--user", "alice", "--pass", "wonder", "--no-auth-warning", "ELASTIC.RESIZE", "8m"))
                    .contains("NOPERM");
            assertThat(cli(f, "-a", "s3cret", "--no-auth-warning", "ELASTIC.RESIZE", "8m")).isEqualTo("OK");
        }
    }

    @Test
    void lettuceWithUserAndPasswordInTheUri() throws Exception {
        try (RespFixture f = serve(users(), false)) {
            RedisClient client = RedisClient.create();
            try {
                try (StatefulRedisConnection<String, String> conn = client.connect(
                        RedisURI.create("redis://alice:wonder@127.0.0.1:" + f.port()))) {
                    RedisCommands<String, String> redis = conn.sync();
                    assertThat(redis.set("l:k", "v")).isEqualTo("OK");
                    assertThat(redis.get("l:k")).isEqualTo("v");
                    assertThat(redis.set("l:k", "x", io.lettuce.core.SetArgs.Builder.nx())).isNull();
                    assertThat(redis.get("l:k")).isEqualTo("v");
                }
                try (StatefulRedisConnection<String, String> conn = client.connect(
                        RedisURI.create("redis://s3cret@127.0.0.1:" + f.port()))) {
                    assertThat(conn.sync().get("l:k")).isEqualTo("v");
                }
                assertThatThrownBy(() -> client.connect(RedisURI.create("redis://alice:nope@127.0.0.1:" + f.port())))
                        .isInstanceOf(RedisConnectionException.class);
            } finally {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void redisCliOverTls() throws Exception {
        assumeRedisCli();
        try (RespFixture f = serve(users(), true)) {
            String ca = dir.resolve("pki").resolve(DevPki.CA_CERTIFICATE).toString();
            assertThat(cli(f, "--tls", "--cacert", ca, "-a", "s3cret", "--no-auth-warning", "SET", "t", "tls"))
                    .isEqualTo("OK");
            assertThat(cli(f, "--tls", "--cacert", ca, "--user", "alice", "--pass", "wonder", "--no-auth-warning",
                    "GET", "t")).isEqualTo("tls");
            assertThat(cli(f, "-a", "s3cret", "--no-auth-warning", "GET", "t")).as("plain text on the TLS port")
                    .doesNotContain("tls");
        }
    }

    @Test
    void lettuceOverTls() throws Exception {
        try (RespFixture f = serve(users(), true)) {
            RedisClient client = RedisClient.create();
            client.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                    .trustManager(dir.resolve("pki").resolve(DevPki.CA_CERTIFICATE).toFile()).build()).build());
            try (StatefulRedisConnection<String, String> conn = client.connect(
                    RedisURI.create("rediss://alice:wonder@127.0.0.1:" + f.port()))) {
                assertThat(conn.sync().set("s:k", "v")).isEqualTo("OK");
                assertThat(conn.sync().get("s:k")).isEqualTo("v");
            } finally {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        }
    }

    private static void assumeRedisCli() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/redis-cli")), "redis-cli is not installed");
    }

    /** redis-cli's output, trimmed. */
    private String cli(RespFixture f, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(f.port())));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "cli", ".out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", cmd) + " still running after 60 s");
        }
        return Files.readString(out).trim();
    }
}
