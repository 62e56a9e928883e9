// SegmentLogFuzzTest -- coverage-guided fuzzing of the log record reader and recovery on open (Jazzer; docs/security.md).
package io.elastikey.store.elastic.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.FsyncPolicy;

import org.junit.jupiter.api.AfterAll;

/**
 * Segment files of fuzzed bytes ({@link SegmentInput}), recovered as a store's open recovers them: {@link Log#open},
 * then {@link LogRecovery}'s header check and replay (the {@link LogScanner}), which cuts a torn newest segment back
 * to its valid prefix, then {@link Log#startAppending}. docs/store.md promises that this either succeeds or fails with
 * a {@link StoreException} naming the damage; never another exception, a hang or an allocation the file's size does
 * not justify. When it succeeds, the index must have received exactly the keys an independent reading of the
 * documented record layout finds live in the valid prefix (last write wins, a tombstone deletes), each value must
 * read back through {@link RecordReader#readValue} (the store's read of a value not in memory) as that reading says,
 * the last sequence number must be the valid prefix's, and the newest segment must be cut to that prefix.
 *
 * <p>The index here is a plain map, not the store's Chronicle Map: creating an index file per input cost 17 ms
 * (57 inputs a second), and the index reads no byte of the segment. {@link SegmentLogStoreOpenTest} replays every
 * input of the corpus through a whole {@code ElasticStore} open with the same checks. The files live on
 * {@code /dev/shm} where it exists, in one directory emptied before each input. Seeds:
 * {@code SegmentLogFuzzTestInputs/recover/}.
 */
class SegmentLogFuzzTest {
    private static final Path DIR = directory();

    @AfterAll
    static void removeDirectory() throws IOException {
        empty(DIR);
        Files.deleteIfExists(DIR);
    }

    @FuzzTest
    void recover(byte[] input) throws IOException {
        if (input.length == 0) {
            return;
        }
        SegmentInput segments = SegmentInput.of(input);
        // Jazzer runs @BeforeEach once for all inputs while fuzzing: what one input leaves must not meet the next.
        empty(DIR);
        segments.writeTo(DIR);
        try (Log log = Log.open(DIR, 64 << 10, FsyncPolicy.NEVER, 0, false)) {
            try {
                LogRecovery.dropHalfCreatedSegment(log);
            } catch (StoreException e) {
                assertThat(e.getMessage()).isNotBlank();
                assertThat(segments.model.headerGood).as("a segment with a good header refused: " + e.getMessage())
                        .isFalse();
                return;
            }
            assertThat(segments.opens()).as("a segment with a bad header accepted").isTrue();
            RecordingIndex index = new RecordingIndex();
            long lastSequence = LogRecovery.replay(log, index, null);
            log.startAppending(lastSequence);
            assertRecovered(segments.model, index, log);
            assertThat(lastSequence).as("last sequence").isEqualTo(Math.max(0, segments.model.lastSequence));
        }
        if (segments.model.headerGood) {
            assertThat(Files.size(segments.first(DIR))).as("segment size after recovery")
                    .isEqualTo(segments.sizeAfterRecovery());
        }
    }

    /** The index holds exactly the live keys, each pointing at a record whose value reads back as the model's. */
    private static void assertRecovered(SegmentInput.Model model, RecordingIndex index, Log log) throws IOException {
        assertThat(index.locations.keySet()).as("keys in the index").isEqualTo(model.live.keySet());
        for (Map.Entry<String, byte[]> entry : model.live.entrySet()) {
            int[] at = index.locations.get(entry.getKey());
            byte[] key = HexFormat.of().parseHex(entry.getKey());
            Segment segment = log.segment(at[0]);
            assertThat(segment).as("segment of key " + entry.getKey()).isNotNull();
            ByteBuffer value = RecordReader.readValue(segment, at[1], at[2], key);
            byte[] read = new byte[value.remaining()];
            value.get(read);
            assertThat(read).as("value of key " + entry.getKey()).isEqualTo(entry.getValue());
        }
    }

    /** What the replay told the index: key (hex) to segment, offset and length. */
    private static final class RecordingIndex implements LogRecovery.Index {
        final Map<String, int[]> locations = new HashMap<>();

        @Override
        public void put(byte[] key, int segmentId, int offset, int length) {
            locations.put(HexFormat.of().formatHex(key), new int[] {segmentId, offset, length});
        }

        @Override
        public void remove(byte[] key) {
            locations.remove(HexFormat.of().formatHex(key));
        }
    }

    /** A fresh directory on {@code /dev/shm} (memory, no disk writes) where there is one, else the temp directory. */
    private static Path directory() {
        try {
            Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "segment-log-fuzz")
                    : Files.createTempDirectory("segment-log-fuzz");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the fuzz target's directory", e);
        }
    }

    private static void empty(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
    }
}
