// Stores -- opens a KeyValueStore from a location string: a directory (ElasticStore) or a Redis URI (RedisStore).
package io.elastikey.store;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.redis.RedisStore;
import io.elastikey.store.redis.RedisStoreConfig;
import io.elastikey.store.redis.RedisUri;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * The one place a store location becomes a store, so every command accepts the same strings:
 * {@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code rediss-sentinel://},
 * {@code redis-cluster://} and {@code rediss-cluster://} URIs open a {@link RedisStore} (options in the query, see
 * {@link RedisStoreConfig}); anything else is a directory path for an {@link ElasticStore}.
 */
public final class Stores {
    private Stores() {
    }

    /** Whether {@code location} names a Redis deployment rather than a directory. */
    public static boolean isRedis(String location) {
        return RedisUri.isRedis(location);
    }

    /**
     * Checks {@code location} without connecting or opening anything.
     *
     * @throws IllegalArgumentException naming what is wrong (a Redis URI's password never appears)
     */
    public static void validate(String location) {
        if (isRedis(location)) {
            RedisStoreConfig.parse(location);
        } else if (location.isBlank()) {
            throw new IllegalArgumentException("empty store location");
        }
    }

    /**
     * Opens the store at {@code location}.
     *
     * @param elastic the settings of an ElasticStore in a given directory (used only for a directory location)
     * @throws StoreException when the store cannot be opened (Redis unreachable, directory locked, ...)
     */
    public static KeyValueStore open(String location, Function<Path, ElasticStoreConfig> elastic) {
        if (isRedis(location)) {
            return RedisStore.open(RedisStoreConfig.parse(location));
        }
        return ElasticStore.open(elastic.apply(Path.of(location).toAbsolutePath().normalize()));
    }

    /** {@code location} as it may appear in logs and messages: a Redis URI's password replaced by {@code ***}. */
    public static String describe(String location) {
        return isRedis(location) ? RedisUri.redact(location.strip()) : location;
    }
}
