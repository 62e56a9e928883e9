// EverySecondFsyncTest -- FsyncPolicy.EVERYSEC on a real store: writes do not wait, the log is fsynced behind them.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes over several segments under {@code EVERYSEC} (each roll-over leaves the full segment to the background
 * fsync, which holds a reference to it): the background thread fsyncs, the store closes cleanly, and everything reads
 * back after a reopen. That a write returns before any fsync is shown without a clock in {@code GroupCommitTest},
 * with an fsync held.
 */
class EverySecondFsyncTest {
    private static final int SEGMENT = 64 << 10;

    @TempDir
    Path dir;

    private ElasticStoreConfig config(FsyncPolicy fsync) {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).fsyncPolicy(fsync).segmentSizeBytes(SEGMENT)
                .compactionIntervalMillis(0).build();
    }

    @Test
    void writesOverSeveralSegmentsAreFsyncedBehindTheWritersAndReadBackAfterAReopen() throws Exception {
        byte[] value = new byte[4096];
        try (ElasticStore store = ElasticStore.open(config(FsyncPolicy.EVERYSEC))) {
            for (int i = 0; i < 100; i++) {
                Arrays.fill(value, (byte) i);
                store.put(key(i), value);
            }
            try (Stream<Path> files = Files.walk(dir)) {
                assertThat(files.filter(f -> f.getFileName().toString().endsWith(".seg")).count())
                        .as("segments written").isGreaterThanOrEqualTo(4);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.logFsyncs() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(store.logFsyncs()).as("the background fsync").isPositive();
        }
        try (ElasticStore reopened = ElasticStore.open(config(FsyncPolicy.NEVER))) {
            for (int i = 0; i < 100; i++) {
                Arrays.fill(value, (byte) i);
                assertThat(reopened.get(key(i))).as("key %d", i).isEqualTo(value);
            }
        }
    }

    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.US_ASCII);
    }
}
