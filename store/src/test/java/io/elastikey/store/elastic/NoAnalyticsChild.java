// NoAnalyticsChild -- child JVM of NoAnalyticsTest: uses an ElasticStore the way a server does, briefly.
package io.elastikey.store.elastic;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Argument: a store directory. Opens a store, writes and reads a few values, resizes the memory
 * tier up and down, closes it, reopens it and reads again: every Chronicle Map the store creates
 * (the index and the memory tiers) is created, used and closed. Prints {@code STORE OK} and exits
 * 0 when every value read back was right; any failure exits non-zero.
 */
final class NoAnalyticsChild {

    private NoAnalyticsChild() {
    }

    public static void main(String[] args) throws Exception {
        ElasticStoreConfig config = ElasticStoreConfig.builder(Path.of(args[0])).memoryBudgetBytes(1 << 20)
                .indexCapacity(10_000).build();
        try (ElasticStore store = ElasticStore.open(config)) {
            for (int i = 0; i < 100; i++) {
                store.put(key(i), value(i));
            }
            check(store);
            await(store.resize(4 << 20));
            check(store);
            await(store.resize(0));
            check(store);
        }
        try (ElasticStore store = ElasticStore.open(config)) {
            check(store);
        }
        System.out.println("STORE OK");
    }

    private static void await(ResizeOperation op) throws Exception {
        if (op.await(60, TimeUnit.SECONDS) != ResizeOperation.State.DONE) {
            throw new IllegalStateException(op + " did not finish: " + op.failure());
        }
    }

    private static void check(ElasticStore store) {
        for (int i = 0; i < 100; i++) {
            if (!Arrays.equals(store.get(key(i)), value(i))) {
                throw new IllegalStateException("wrong value for key " + i);
            }
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).repeat(1 + i).getBytes(StandardCharsets.UTF_8);
    }
}
