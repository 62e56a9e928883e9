// RedisContainerContractTest -- the KeyValueStore contract on Redis in a container, where a Docker engine runs.
package io.elastikey.store.redis;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.KeyValueStoreContract;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * The same contract {@link RedisStoreContractTest} runs against the Debian redis-server, here against the official
 * image, so a machine with Docker also checks RedisStore against the Redis most operators deploy. Without a Docker
 * engine (the build machines have none) JUnit reports the class as skipped, saying why.
 */
@Testcontainers(disabledWithoutDocker = true)
class RedisContainerContractTest extends KeyValueStoreContract {

    @Container
    static final GenericContainer<?> REDIS = new GenericContainer<>(DockerImageName.parse("redis:7.2-alpine"))
            .withExposedPorts(6379);

    @Override
    protected KeyValueStore openEmpty() throws Exception {
        REDIS.execInContainer("redis-cli", "flushall");
        return RedisStore.open("redis://" + REDIS.getHost() + ":" + REDIS.getMappedPort(6379) + "?batch=100");
    }
}
