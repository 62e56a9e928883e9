// NumberedStore -- the governor tests' store: numbered keys whose values say which key they belong to.
package io.elastikey.store.governor;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.elastic.ResizeOperation;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Key {@code i} is {@code key-%05d}; its value is {@code valueSize} seeded random bytes that start with {@code i},
 * so every answer a test reads can be checked against the key it asked for.
 */
final class NumberedStore {
    private NumberedStore() {
    }

    /** An ElasticStore in {@code dir} with {@code budgetBytes} of memory, holding keys 0 to {@code keys - 1}. */
    static ElasticStore open(Path dir, long budgetBytes, int keys, int valueSize) {
        ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(budgetBytes)
                .indexCapacity(10_000).fsyncPolicy(FsyncPolicy.NEVER).averageKeySize(9).averageValueSize(valueSize)
                .build());
        List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            batch.add(Map.entry(key(i), value(i, valueSize)));
        }
        store.putAll(batch);
        settle(store);
        return store;
    }

    /** Waits for the store's last resize to finish (a condition, not a timing) and checks it succeeded. */
    static void settle(ElasticStore store) {
        ResizeOperation op = store.lastResize();
        if (op == null) {
            return;
        }
        try {
            if (op.await(60, TimeUnit.SECONDS) != ResizeOperation.State.DONE) {
                throw new AssertionError("resize ended " + op.state() + ": " + op);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Whether {@code v} is key {@code k}'s value. */
    static boolean matches(byte[] v, int k, int valueSize) {
        return v != null && v.length == valueSize
                && ((v[0] & 0xff) << 24 | (v[1] & 0xff) << 16 | (v[2] & 0xff) << 8 | (v[3] & 0xff)) == k;
    }

    static byte[] key(int i) {
        return String.format("key-%05d", i).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i, int valueSize) {
        byte[] v = new byte[valueSize];
        new SplittableRandom(i).nextBytes(v);
        v[0] = (byte) (i >>> 24);
        v[1] = (byte) (i >>> 16);
        v[2] = (byte) (i >>> 8);
        v[3] = (byte) i;
        return v;
    }
}
