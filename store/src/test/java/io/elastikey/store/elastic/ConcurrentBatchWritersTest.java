// ConcurrentBatchWritersTest -- batches and single puts of overlapping keys from many threads, with compaction running.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four threads write {@code putAll} batches of 1 to 150 entries (so several of the store's batches each) and one
 * thread single puts, all over the same 300 keys in random orders, while compaction runs every 50 ms over 64 KiB
 * segments. Batches lock their keys' stripes in one order, so the threads must all finish (no deadlock between two
 * batches, or a batch and a put); and for every key, what the store answers (from its memory tier where the key is
 * there) must be what a reopened store, with no memory tier, reads from the log: the tier never keeps a value older
 * than the index, whichever writer won.
 */
class ConcurrentBatchWritersTest {

    private static final int KEYS = 300;
    private static final long MILLIS = 2000;

    @TempDir
    Path dir;

    private final Queue<Throwable> problems = new ConcurrentLinkedQueue<>();
    private volatile boolean stop;

    private ElasticStoreConfig.Builder config() {
        return ElasticStoreConfig.builder(dir).indexCapacity(4096).fsyncPolicy(FsyncPolicy.NEVER)
                .segmentSizeBytes(64 << 10).compactionIntervalMillis(50);
    }

    @Test
    void batchesAndPutsOfTheSameKeysNeitherDeadlockNorLeaveTheTierBehindTheLog() throws Exception {
        Map<String, byte[]> answered = new HashMap<>();
        try (ElasticStore store = ElasticStore.open(config().memoryBudgetBytes(4 << 20).build())) {
            // The resize after open first; the test wants the tier there, not a race with its creation.
            assertThat(store.lastResize().await(60, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                threads.add(start(() -> writeBatches(store, id)));
            }
            threads.add(start(() -> writeSingles(store)));
            Thread.sleep(MILLIS);
            stop = true;
            for (Thread t : threads) {
                t.join(30_000);
                assertThat(t.isAlive()).as("a writer still blocked 30 s after the stop: a deadlock").isFalse();
            }
            assertThat(problems).isEmpty();
            for (int k = 0; k < KEYS; k++) {
                byte[] v = store.get(key(k));
                assertThat(v).as("key %d written at least once", k).isNotNull();
                answered.put("k" + k, v);
            }
            assertThat(store.stats().hits()).as("the tier answered some of them").isPositive();
        }
        try (ElasticStore store = ElasticStore.open(config().memoryBudgetBytes(0).build())) {
            for (int k = 0; k < KEYS; k++) {
                assertThat(store.get(key(k))).as("key %d: the tier's answer against the log's", k)
                        .isEqualTo(answered.get("k" + k));
            }
        }
    }

    private void writeBatches(ElasticStore store, int id) {
        SplittableRandom rnd = new SplittableRandom(id);
        for (int round = 0; !stop; round++) {
            int n = 1 + rnd.nextInt(150);
            List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                batch.add(Map.entry(key(rnd.nextInt(KEYS)), value(id, round, rnd)));
            }
            store.putAll(batch);
        }
    }

    private void writeSingles(ElasticStore store) {
        SplittableRandom rnd = new SplittableRandom(99);
        for (int round = 0; !stop; round++) {
            store.put(key(rnd.nextInt(KEYS)), value(9, round, rnd));
        }
    }

    private static byte[] key(int k) {
        return ("key-" + k).getBytes(StandardCharsets.US_ASCII);
    }

    /** Which writer and round, then 0 to 2,000 bytes, so blocks change size classes and segments fill. */
    private static byte[] value(int writer, int round, SplittableRandom rnd) {
        byte[] v = new byte[8 + rnd.nextInt(2000)];
        ByteBuffer.wrap(v).putInt(writer).putInt(round);
        return v;
    }

    private Thread start(Runnable r) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                problems.add(e);
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }
}
