// RedisStoreContractTest -- the shared KeyValueStore contract on a real Redis, without and with a key prefix.
package io.elastikey.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.KeyValueStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisStoreContractTest {
    @TempDir
    static Path dir;
    static RedisServer redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServers.standalone(dir);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    /** No prefix: DBSIZE counts, SCAN walks the whole database. */
    @Nested
    class WithoutPrefix extends KeyValueStoreContract {
        @Override
        protected KeyValueStore openEmpty() throws Exception {
            redis.cli("flushall");
            return RedisStore.open(redis.uri() + "?batch=100");
        }

        @Test
        void statsCountFoundAndNotFoundGetsWithTheirLatencyAndRedisMemory() {
            store.put(b("s"), b("v"));
            store.get(b("s"));
            store.get(b("s"), java.nio.ByteBuffer.allocate(8));
            store.get(b("nope"));
            io.elastikey.store.StoreStats stats = store.stats();
            assertThat(stats.hits()).isEqualTo(2);
            assertThat(stats.misses()).isEqualTo(1);
            assertThat(stats.lookupLatencyNanos().getTotalCount()).isEqualTo(3);
            assertThat(stats.entries()).isEqualTo(1);
            assertThat(stats.memoryEntries()).isEqualTo(1);
            assertThat(stats.memoryBytes()).as("INFO used_memory").isPositive();
            assertThat(stats.diskBytes()).isEqualTo(-1);
        }
    }

    /**
     * A prefix with glob characters, in a database that also holds another namespace's keys: the store must see
     * only its own (size by SCAN count, forEach by SCAN MATCH), and leave the others alone.
     */
    @Nested
    class WithPrefix extends KeyValueStoreContract {
        @Override
        protected KeyValueStore openEmpty() throws Exception {
            redis.cli("flushall");
            try (RedisStore other = RedisStore.open(redis.uri() + "?prefix=other:")) {
                other.put(b("k1"), b("foreign"));
                other.put(b("each-1"), b("foreign"));
            }
            redis.cli("set", "ek*:x", "matched by the prefix as an unescaped glob");
            return RedisStore.open(redis.uri() + "?prefix=ek%5B*%5D:&batch=100");
        }

        @Test
        void keysLiveUnderThePrefixAndOtherNamespacesAreUntouched() throws Exception {
            store.put(b("k1"), b("mine"));
            assertThat(redis.cli("get", "ek[*]:k1").strip()).isEqualTo("mine");
            assertThat(redis.cli("get", "other:k1").strip()).isEqualTo("foreign");
            store.delete(b("k1"));
            assertThat(redis.cli("exists", "other:k1").strip()).isEqualTo("1");
            assertThat(store.stats().entries()).as("unknown without a scan").isEqualTo(-1);
        }
    }
}
