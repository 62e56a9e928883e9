// BackgroundCompactionTest -- a background compaction pass leaves the segments it moved to the next checkpoint.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.log.Segment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why the pass defers: a checkpoint per compacted segment write-protected the whole index again and again, and every
 * writer's next index update faulted ({@link Compactor}). These tests hold the deletion's rules: a moved segment
 * stays on disk, readable, until a checkpoint that began after the move, or the store's close, deletes it; past
 * {@link Compactor#MAX_MOVED} waiting, the pass checkpoints itself; and nothing is lost on either path.
 */
class BackgroundCompactionTest {

    private static final int KEYS_PER_SEGMENT = 60; // 1,000-byte values in 64 KiB segments

    @TempDir
    Path dir;

    private ElasticStore open() {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10).compactionGarbageRatio(0.5)
                .compactionIntervalMillis(20).checkpointIntervalMillis(3_600_000).build());
    }

    @Test
    void aMovedSegmentStaysReadableOnDiskUntilTheNextCheckpointDeletesIt() throws Exception {
        int keys = 4 * KEYS_PER_SEGMENT;
        try (ElasticStore store = open()) {
            List<Segment> first = writeThenOverwriteMost(store, keys);
            awaitTrue(() -> first.stream().allMatch(s -> s.liveBytes() == 0), "the pass moved the live records");

            assertThat(first).allMatch(s -> Files.exists(s.path()), "moved segments still on disk");
            assertThat(store.log.segments()).containsAll(first);
            OverwrittenKeys.assertLatest(store, keys);

            assertThat(store.checkpoint(false)).isGreaterThanOrEqualTo(first.size());
            assertThat(first).noneMatch(s -> Files.exists(s.path()));
            assertThat(Arrays.asList(store.log.segments())).doesNotContainAnyElementsOf(first);
            OverwrittenKeys.assertLatest(store, keys);
        }
        try (ElasticStore store = open()) {
            OverwrittenKeys.assertLatest(store, keys);
        }
    }

    @Test
    void closingTheStoreDeletesWhatThePassMoved() throws Exception {
        int keys = 4 * KEYS_PER_SEGMENT;
        List<Segment> first;
        try (ElasticStore store = open()) {
            first = writeThenOverwriteMost(store, keys);
            awaitTrue(() -> first.stream().allMatch(s -> s.liveBytes() == 0), "the pass moved the live records");
            assertThat(first).allMatch(s -> Files.exists(s.path()));
        }
        assertThat(first).noneMatch(s -> Files.exists(s.path()));
        try (ElasticStore store = open()) {
            OverwrittenKeys.assertLatest(store, keys);
            assertThat(store.size()).isEqualTo(keys);
        }
    }

    @Test
    void aPassWithManyMovedSegmentsCheckpointsAndDeletesThemItself() throws Exception {
        int keys = (Compactor.MAX_MOVED + 4) * KEYS_PER_SEGMENT;
        try (ElasticStore store = open()) {
            List<Segment> first = writeThenOverwriteMost(store, keys);
            assertThat(first.size()).isGreaterThan(Compactor.MAX_MOVED);
            // No periodic checkpoint comes for an hour: only the pass's own can delete them.
            awaitTrue(() -> Files.notExists(first.get(0).path()), "the oldest moved segment deleted");
            OverwrittenKeys.assertLatest(store, keys);
        }
        try (ElasticStore store = open()) {
            OverwrittenKeys.assertLatest(store, keys);
        }
    }

    @Test
    void aPassThatListedTheLogBeforeACheckpointLeavesTheSegmentsItDeletedAlone() throws Exception {
        int keys = 4 * KEYS_PER_SEGMENT;
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .indexCapacity(10_000).fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10)
                .compactionGarbageRatio(0.5).compactionIntervalMillis(0).checkpointIntervalMillis(0).build())) {
            List<Segment> first = writeThenOverwriteMost(store, keys);
            store.compactor.compactEligible(true); // moved, left for a checkpoint
            assertThat(store.compactor.moved()).containsAll(first);

            Segment[] listed = store.log.segments(); // a background pass lists the log...
            assertThat(store.checkpoint(false)).isGreaterThanOrEqualTo(first.size()); // ...a checkpoint deletes...
            assertThat(first).allMatch(Segment::isRetired);
            // ...and the pass must not scan them again: their files are closed (it failed on ClosedChannelException)
            assertThat(store.compactor.compactEligible(listed, true)).isZero();
            assertThat(store.compactor.moved()).isEmpty();
            OverwrittenKeys.assertLatest(store, keys);
        }
    }

    /**
     * Writes {@code keys} keys, then overwrites seven in ten of them, so every segment of the first round holds 70%
     * garbage and some live records to move; returns the first round's sealed segments.
     */
    private static List<Segment> writeThenOverwriteMost(ElasticStore store, int keys) {
        OverwrittenKeys.writeAll(store, keys);
        Segment active = store.log.active();
        List<Segment> first = Arrays.stream(store.log.segments()).filter(s -> s != active).toList();
        OverwrittenKeys.overwriteMost(store, keys);
        return first;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited 30 s for: " + what).isNegative();
            Thread.sleep(10);
        }
    }
}
