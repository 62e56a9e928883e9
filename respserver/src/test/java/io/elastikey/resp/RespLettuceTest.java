package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.RedisFuture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lettuce, the suite's Redis client, against a RespServer: it opens with HELLO 3, gets NOPROTO and
 * goes on in RESP2; then the data commands, binary values, and pipelined async commands.
 */
class RespLettuceTest {
    @TempDir
    Path dir;

    @Test
    void lettuceConnectsAndUsesTheDataCommands() throws Exception {
        try (RespFixture f = new RespFixture(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", f.port()));
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> redis = conn.sync();
                assertThat(redis.ping()).isEqualTo("PONG");
                assertThat(redis.set("l:a", "1")).isEqualTo("OK");
                assertThat(redis.set("l:b", "2", SetArgs.Builder.ex(60))).isEqualTo("OK");
                assertThat(redis.get("l:a")).isEqualTo("1");
                assertThat(redis.mget("l:a", "l:none", "l:b"))
                        .containsExactly(KeyValue.just("l:a", "1"), KeyValue.empty("l:none"), KeyValue.just("l:b", "2"));
                assertThat(redis.exists("l:a", "l:b", "l:none")).isEqualTo(2L);
                assertThat(redis.dbsize()).isEqualTo(2L);
                assertThat(redis.del("l:a")).isEqualTo(1L);
                assertThat(redis.get("l:a")).isNull();
                assertThat(redis.echo("hi")).isEqualTo("hi");
                assertThat(redis.info("server")).contains("redis_version:");
                assertThat(redis.clientSetname("lettuce-test")).isEqualTo("OK");
                assertThat(redis.clientGetname()).isEqualTo("lettuce-test");
                assertThat(redis.set("l:c", "3", SetArgs.Builder.nx())).isEqualTo("OK");
                assertThat(redis.set("l:c", "4", SetArgs.Builder.nx())).as("NX on a present key").isNull();
                assertThat(redis.setGet("l:c", "5")).isEqualTo("3");
                assertThat(redis.incr("l:n")).isEqualTo(1L);
                assertThat(redis.incrby("l:n", 41)).isEqualTo(42L);
                assertThat(redis.append("l:c", "6")).isEqualTo(2L);
                assertThat(redis.strlen("l:c")).isEqualTo(2L);
                assertThat(redis.getdel("l:c")).isEqualTo("56");
                assertThatThrownBy(() -> redis.set("l:lock", "me", SetArgs.Builder.nx().ex(30)))
                        .isInstanceOf(RedisCommandExecutionException.class).hasMessageContaining("no expiry");
            } finally {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void binaryValuesAndPipelinedAsyncCommands() throws Exception {
        try (RespFixture f = new RespFixture(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", f.port()));
            try (StatefulRedisConnection<byte[], byte[]> conn = client.connect(ByteArrayCodec.INSTANCE)) {
                RedisAsyncCommands<byte[], byte[]> redis = conn.async();
                conn.setAutoFlushCommands(false);
                List<RedisFuture<?>> futures = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    byte[] key = new byte[] {(byte) 0xff, 0, (byte) i, (byte) (i >> 8)};
                    byte[] value = new byte[4096];
                    java.util.Arrays.fill(value, (byte) i);
                    futures.add(redis.set(key, value));
                    futures.add(redis.get(key));
                }
                conn.flushCommands();
                for (int i = 0; i < 500; i++) {
                    assertThat(futures.get(2 * i).get(30, TimeUnit.SECONDS)).isEqualTo("OK");
                    byte[] value = (byte[]) futures.get(2 * i + 1).get(30, TimeUnit.SECONDS);
                    assertThat(value).hasSize(4096).containsOnly((byte) i);
                }
            } finally {
                client.shutdown(0, 5, TimeUnit.SECONDS);
            }
        }
    }
}
