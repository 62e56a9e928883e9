// SegmentReuseTest -- an emptied segment's file becomes a later segment, and its old records never come back.
package io.elastikey.store.elastic;

import static io.elastikey.store.elastic.OverwrittenKeys.key;
import static io.elastikey.store.elastic.OverwrittenKeys.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.log.Segment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log keeps emptied segment files ({@code NNNNNNNNNN.free}) and writes the next segments into them
 * over their cached pages ({@code Log}'s class comment). A reused file still holds its old records past the new
 * ones' end until the segment is cut; these tests hold that none of them is ever read as part of the log: not by a
 * store that closed, nor by one opened over a copy of the files taken while the reused segment was being written,
 * which is what a killed process leaves.
 */
class SegmentReuseTest {

    private static final int KEYS = 300; // 1,000-byte values: some five 64 KiB segments
    private static final int EXTRAS = 1_000;

    @TempDir
    Path dir;

    @TempDir
    Path copy;

    private ElasticStore open(Path directory) {
        return ElasticStore.open(ElasticStoreConfig.builder(directory).memoryBudgetBytes(0).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10).compactionGarbageRatio(0.5)
                .compactionIntervalMillis(0).checkpointIntervalMillis(0).build());
    }

    @Test
    void aCompactedSegmentsFileBecomesTheNextSegmentAndIsCutToItsRecords() throws IOException {
        try (ElasticStore store = open(dir)) {
            writeThenOverwriteMost(store);
            int compacted = store.compactNow();
            assertThat(compacted).isGreaterThan(2);
            assertThat(store.log.recycledFiles()).as("every emptied file kept").isEqualTo(compacted);
            assertThat(freeFiles(dir)).hasSize(compacted);
            List<Path> kept = freeFiles(dir);

            for (int i = 0; i < EXTRAS; i++) {
                store.put(extra(i), value(i, 5));
            }
            assertThat(store.log.recycledFiles()).isLessThan(compacted);
            assertThat(kept).anyMatch(Files::notExists);
            for (Segment s : store.log.segments()) {
                if (s != store.log.active()) {
                    assertThat(Files.size(s.path())).as("%s cut to its records", s).isEqualTo(s.size());
                }
            }
            assertValues(store);
        }
        for (Path segment : segmentFiles(dir)) {
            assertThat(Files.size(segment)).isLessThanOrEqualTo(64 << 10);
        }
        try (ElasticStore store = open(dir)) {
            assertValues(store);
            assertThat(store.size()).isEqualTo(KEYS + EXTRAS);
        }
    }

    /**
     * Kept files the log no longer uses go back: a trim with no segment started since the last one keeps two, the
     * newest.
     */
    @Test
    void keptFilesBeyondWhatTheLogUsedSinceTheLastTrimAreDeleted() throws IOException {
        try (ElasticStore store = open(dir)) {
            writeThenOverwriteMost(store);
            store.log.trimRecycled(); // forget the segments started while writing
            int compacted = store.compactNow();
            assertThat(compacted).isGreaterThan(2);
            List<Path> kept = freeFiles(dir);
            assertThat(kept).hasSize(compacted);

            store.log.trimRecycled();

            assertThat(store.log.recycledFiles()).isEqualTo(2);
            assertThat(freeFiles(dir)).as("the two newest kept").containsExactlyElementsOf(
                    kept.subList(kept.size() - 2, kept.size()));
            OverwrittenKeys.assertLatest(store, KEYS);
        }
    }

    /**
     * The store's periodic checkpoint trims: once writes stop, the kept files go back to two within two checkpoint
     * intervals (the first trim still counts the segments the writes started).
     */
    @Test
    void thePeriodicCheckpointGivesBackTheKeptFilesOnceWritesStop() throws Exception {
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .indexCapacity(10_000).fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10)
                .compactionGarbageRatio(0.5).compactionIntervalMillis(0).checkpointIntervalMillis(100).build())) {
            writeThenOverwriteMost(store);
            int before = store.log.segments().length;
            store.compactNow(); // its count misses what a periodic checkpoint removed meanwhile
            assertThat(before - store.log.segments().length).as("segments emptied, net").isGreaterThan(2);

            long deadline = System.nanoTime() + 30_000_000_000L;
            while (store.log.recycledFiles() > 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }

            assertThat(store.log.recycledFiles()).isEqualTo(2);
            assertThat(freeFiles(dir)).hasSize(2);
            OverwrittenKeys.assertLatest(store, KEYS);
        }
    }

    /** A reopened log keeps two: how many a stream of writes will need is not known yet. */
    @Test
    void aReopenedLogKeepsTwoFiles() throws IOException {
        try (ElasticStore store = open(dir)) {
            writeThenOverwriteMost(store);
            assertThat(store.compactNow()).isGreaterThan(2);
        }
        try (ElasticStore store = open(dir)) {
            assertThat(store.log.recycledFiles()).isEqualTo(2);
            assertThat(freeFiles(dir)).hasSize(2);
            OverwrittenKeys.assertLatest(store, KEYS);
        }
    }

    @Test
    void theOldRecordsOfAReusedFileAreNotReplayedAfterACrash() throws IOException {
        int extras;
        try (ElasticStore store = open(dir)) {
            writeThenOverwriteMost(store); // the first segment holds key-0, key-1, ... in their first versions...
            assertThat(store.compactNow()).isPositive(); // ...and its file is the first kept for reuse
            extras = fillTheActiveSegment(store);
            Segment before = store.log.active();
            for (int i = 0; i < 5; i++) {
                store.put(key(i), value(i, 3)); // the first rolls over: key-0 .. key-4 over their old records
            }
            Segment reused = store.log.active();
            assertThat(reused).isNotSameAs(before);
            assertThat(Files.size(reused.path())).as("the new segment is a reused, longer file")
                    .isGreaterThan(reused.size());

            copyFiles(dir, copy); // what SIGKILL leaves: no cut, no clean checkpoint
        }
        try (ElasticStore store = open(copy)) {
            for (int i = 0; i < KEYS; i++) {
                // key-5's first version follows key-4's new one in the reused file, a whole record with a good CRC
                byte[] expected = i < 5 ? value(i, 3) : value(i, OverwrittenKeys.overwritten(i) ? 2 : 1);
                assertThat(store.get(key(i))).as("key %d", i).isEqualTo(expected);
            }
            for (int i = 0; i < extras; i++) {
                assertThat(store.get(extra(i))).isEqualTo(value(i, 5));
            }
            assertThat(store.size()).isEqualTo(KEYS + extras);
            Segment newest = store.log.active();
            assertThat(Files.size(newest.path())).as("the reused file cut at its new records' end")
                    .isEqualTo(newest.size());
        }
    }

    /** Writes every key once, then seven in ten again: the first round's segments become 70% garbage. */
    private static void writeThenOverwriteMost(ElasticStore store) {
        OverwrittenKeys.writeAll(store, KEYS);
        OverwrittenKeys.overwriteMost(store, KEYS);
    }

    /** Writes {@code xNNNN} keys while their records fit the active segment, so the next one rolls over. */
    private static int fillTheActiveSegment(ElasticStore store) {
        int recordLength = 24 + 5 + 1000;
        int i = 0;
        while (store.log.active().size() + recordLength <= (64 << 10)) {
            store.put(extra(i), value(i, 5));
            i++;
        }
        return i;
    }

    private static void assertValues(ElasticStore store) {
        OverwrittenKeys.assertLatest(store, KEYS);
        for (int i = 0; i < EXTRAS; i++) {
            assertThat(store.get(extra(i))).isEqualTo(value(i, 5));
        }
    }

    /** Five bytes, as {@code key-0} .. {@code key-9}: their records are as long. */
    private static byte[] extra(int i) {
        return String.format("x%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Path> freeFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".free")).sorted().toList();
        }
    }

    private static List<Path> segmentFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".seg")).toList();
        }
    }

    private static void copyFiles(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.list(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }
}
