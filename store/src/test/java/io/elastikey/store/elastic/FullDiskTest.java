// FullDiskTest -- a store on a file system that runs out of space: clear errors, nothing lost or corrupted.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs on a real, small tmpfs mounted for the test (root only: the build machines and CI run as
 * root; elsewhere the test is skipped, saying why).
 */
class FullDiskTest {

    @TempDir
    Path tmp;

    private Path mountPoint;

    @BeforeEach
    void mountSmallTmpfs() throws Exception {
        mountPoint = tmp.resolve("fs");
        java.nio.file.Files.createDirectories(mountPoint);
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint.toString()) == 0,
                "needs root to mount a tmpfs");
    }

    @AfterEach
    void unmount() throws Exception {
        if (mountPoint != null) {
            run("umount", mountPoint.toString());
        }
    }

    private ElasticStoreConfig config() {
        return ElasticStoreConfig.builder(mountPoint.resolve("store")).memoryBudgetBytes(0).indexCapacity(8192)
                .segmentSizeBytes(64 << 10).fsyncPolicy(FsyncPolicy.ALWAYS).compactionIntervalMillis(0).build();
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[3000];
        v[0] = (byte) i;
        v[v.length - 1] = (byte) (i >>> 8);
        return v;
    }

    @Test
    void aFullDiskFailsWritesClearlyAndKeepsEveryAcknowledgedOne() throws Exception {
        int acked = 0;
        try (ElasticStore store = ElasticStore.open(config())) {
            StoreException failure = null;
            for (int i = 0; i < 100_000 && failure == null; i++) {
                try {
                    store.put(key(i), value(i));
                    acked++;
                } catch (StoreException e) {
                    failure = e;
                }
            }
            assertThat(failure).isNotNull();
            assertThat(failure.getMessage()).contains("No space left on device");
            assertThat(acked).isPositive();
            assertThat(store.size()).isEqualTo(acked);
            for (int i = 0; i < acked; i++) {
                assertThat(store.get(key(i))).as("key %d", i).isEqualTo(value(i));
            }
        }
        // More room: the store recovers (truncating the partial record) and takes writes again.
        assertThat(run("mount", "-o", "remount,size=16m", mountPoint.toString())).isZero();
        try (ElasticStore store = ElasticStore.open(config())) {
            assertThat(store.size()).isEqualTo(acked);
            for (int i = 0; i < acked; i++) {
                assertThat(store.get(key(i))).as("key %d after reopening", i).isEqualTo(value(i));
            }
            store.put(key(acked), value(acked));
            assertThat(store.get(key(acked))).isEqualTo(value(acked));
        }
    }

    @Test
    void writesWorkAgainOnceSpaceIsFreedWhileTheStoreStaysOpen() throws Exception {
        int acked = 0;
        try (ElasticStore store = ElasticStore.open(config())) {
            StoreException failure = null;
            for (int i = 0; i < 100_000 && failure == null; i++) {
                try {
                    store.put(key(i), value(i));
                    acked++;
                } catch (StoreException e) {
                    failure = e;
                }
            }
            assertThat(failure).isNotNull();
            // A value that cannot fit in the active segment: each try rolls over to a new segment file, which the
            // full disk refuses (the file can be created, its header cannot be written).
            byte[] big = new byte[60 << 10];
            for (int attempt = 0; attempt < 3; attempt++) {
                try {
                    store.put(key(-1), big);
                } catch (StoreException e) {
                    assertThat(e.getMessage()).contains("No space left on device");
                }
            }

            // Space comes back (an operator deletes something); the running store takes writes again.
            assertThat(run("mount", "-o", "remount,size=16m", mountPoint.toString())).isZero();
            store.put(key(-1), big);
            for (int i = acked; i < acked + 100; i++) { // about five more segments
                store.put(key(i), value(i));
            }
            assertThat(store.get(key(-1))).isEqualTo(big);
            for (int i = 0; i < acked + 100; i++) {
                assertThat(store.get(key(i))).as("key %d", i).isEqualTo(value(i));
            }
        }
        try (ElasticStore store = ElasticStore.open(config())) {
            assertThat(store.size()).isEqualTo(acked + 101L);
            for (int i = 0; i < acked + 100; i++) {
                assertThat(store.get(key(i))).as("key %d after reopening", i).isEqualTo(value(i));
            }
        }
    }

    /**
     * Batches of puts until the disk is full: the batch that meets the full disk fails; of its entries, those the
     * log took before the failure are readable (the rest are not), and a reopened store has exactly what the open
     * one had. Nothing acknowledged is lost, nothing half-written comes back.
     */
    @Test
    void aBatchThatMeetsAFullDiskKeepsWhatTheLogTookAndNothingElse() throws Exception {
        int acked = 0;
        int tried;
        StoreException failure = null;
        try (ElasticStore store = ElasticStore.open(config())) {
            for (tried = 0; tried < 100_000 && failure == null; tried += 10) {
                java.util.List<java.util.Map.Entry<byte[], byte[]>> batch = new java.util.ArrayList<>();
                for (int i = tried; i < tried + 10; i++) {
                    batch.add(java.util.Map.entry(key(i), value(i)));
                }
                try {
                    store.putAll(batch);
                    acked = tried + 10;
                } catch (StoreException e) {
                    failure = e;
                }
            }
            assertThat(failure).isNotNull();
            assertThat(failure.getMessage()).contains("No space left on device");
            assertThat(acked).isPositive();
            int present = 0;
            for (int i = 0; i < tried; i++) {
                byte[] v = store.get(key(i));
                if (i < acked) {
                    assertThat(v).as("acknowledged key %d", i).isEqualTo(value(i));
                }
                if (v != null) {
                    assertThat(v).as("key %d", i).isEqualTo(value(i));
                    assertThat(i).as("only a prefix of the failed batch").isEqualTo(present);
                    present++;
                }
            }
            assertThat(store.size()).isEqualTo(present);
            acked = present;
        }
        assertThat(run("mount", "-o", "remount,size=16m", mountPoint.toString())).isZero();
        try (ElasticStore store = ElasticStore.open(config())) {
            assertThat(store.size()).as("after reopening").isEqualTo(acked);
            for (int i = 0; i < acked; i++) {
                assertThat(store.get(key(i))).as("key %d after reopening", i).isEqualTo(value(i));
            }
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }
}
