// RedisContainerContractTest -- the KeyValueStore contract against Redis in a container (elastikey-redis, Debian's
// redis-server), as the Redis-backed key server of docker/compose.yaml uses it.
package io.elastikey.docker;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.KeyValueStoreContract;
import io.elastikey.store.redis.RedisStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

import java.time.Duration;

/**
 * The same contract {@code RedisStoreContractTest} (store module) runs against a redis-server process, here against
 * the image the compose stack deploys. Moved here from the store module so that module's tests never wait on
 * Docker; skipped, saying why, where no Docker engine runs.
 */
class RedisContainerContractTest extends KeyValueStoreContract {

    private static GenericContainer<?> redis;
    private static int port;

    @BeforeAll
    static void startRedis() throws Exception {
        Docker.requireImages();
        port = Docker.freePort();
        redis = Docker.container(Docker.REDIS_IMAGE)
                .withCommand("--bind", "127.0.0.1", "--port", Integer.toString(port), "--save", "",
                        "--appendonly", "no")
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1)
                        .withStartupTimeout(Duration.ofMinutes(1)));
        redis.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.stop();
        }
    }

    @Override
    protected KeyValueStore openEmpty() throws Exception {
        var flush = redis.execInContainer("redis-cli", "-p", Integer.toString(port), "flushall");
        if (flush.getExitCode() != 0) {
            throw new IllegalStateException("redis-cli flushall: " + flush.getStderr());
        }
        return RedisStore.open("redis://127.0.0.1:" + port + "?batch=100");
    }
}
