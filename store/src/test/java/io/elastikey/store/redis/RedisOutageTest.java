// RedisOutageTest -- Redis killed with SIGKILL mid-run: clear StoreExceptions, then recovery on restart.
package io.elastikey.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisOutageTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void killedRedisGivesStoreExceptionsAndARestartedOneServesAgain() throws Exception {
        try (RedisServer redis = RedisServers.standalone(dir);
             RedisStore store = RedisStore.open(redis.uri() + "?timeout=1s&connect-timeout=1s")) {
            store.put(b("before"), b("v"));
            assertThat(store.available()).isTrue();

            redis.kill();
            for (Runnable operation : List.<Runnable>of(
                    () -> store.get(b("before")),
                    () -> store.put(b("during"), b("v")),
                    () -> store.putAll(List.of(Map.entry(b("batch"), b("v")))),
                    () -> store.delete(b("before")),
                    store::size,
                    () -> store.forEach((k, v) -> { }))) {
                assertThatThrownBy(operation::run).isInstanceOf(StoreException.class)
                        .hasMessageContaining("Redis " + redis.uri());
            }
            await("the store to report Redis unavailable", () -> !store.available());
            assertThat(store.stats().hits()).as("stats never throw").isGreaterThanOrEqualTo(0);

            redis.restart();
            await("the store to reconnect", () -> {
                try {
                    store.put(b("after"), b("v2"));
                    return true;
                } catch (StoreException e) {
                    return false;
                }
            });
            assertThat(store.get(b("after"))).isEqualTo(b("v2"));
            assertThat(store.get(b("before"))).as("no persistence configured: the old data is gone").isNull();
            store.putAll(List.of(Map.entry(b("batch"), b("v3"))));
            assertThat(store.get(b("batch"))).isEqualTo(b("v3"));
            await("the store to report Redis available", store::available);
        }
    }

    @Test
    void anUnreachableRedisFailsToOpenWithAClearError() throws Exception {
        int port = RedisServers.freePort(false);
        assertThatThrownBy(() -> RedisStore.open("redis://:pw@127.0.0.1:" + port + "?connect-timeout=1s"))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("cannot connect to Redis redis://:***@127.0.0.1:" + port)
                .hasMessageNotContaining(":pw@");
    }

    /** Polls until {@code condition} holds; fails after 20 s. Nothing is asserted about how long it took. */
    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
