// SegmentLogFuzzTest -- coverage-guided fuzzing of the log record reader and recovery on open (Jazzer; docs/security.md).
package io.elastikey.store.elastic.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;


/**
 * A segment file of fuzzed bytes, opened as a store: recovery reads it with {@link LogScanner} and replays it into
 * the index. docs/store.md promises that the open either succeeds, with the newest segment cut back to its valid
 * prefix, or fails with a {@link StoreException} naming the damage; never another exception, a hang or an
 * allocation the file's size does not justify. When it succeeds, the store must hold what an independent reading of
 * the documented record layout says the valid prefix holds (last write wins, a tombstone deletes).
 *
 * <p>CRC32C would stop a mutation-based fuzzer at the first record, so the first byte of an input chooses what the
 * target does with the rest: bit 0 writes a valid segment header in front (else the bytes are the whole file),
 * bit 1 recomputes the CRC of every record whose lengths fit (so the fuzzer explores what is inside records), bit 2
 * makes the file an older segment followed by an empty newest one (damage there is skipped, not truncated). Seeds:
 * {@code SegmentLogFuzzTestInputs/openStore/}.
 */
class SegmentLogFuzzTest {
    private static final int MAX_KEY_SIZE = 64;
    private static final int MAX_VALUE_SIZE = 4096;
    @FuzzTest
    void openStore(byte[] input) throws IOException {
        if (input.length == 0) {
            return;
        }
        // A directory per input, made here: while fuzzing, Jazzer runs @BeforeEach once for all inputs, and what
        // one open leaves behind (index, checkpoint) must not meet the next input.
        Path dir = Files.createTempDirectory("segment-log-fuzz");
        try {
            openStore(input, dir);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static void openStore(byte[] input, Path dir) throws IOException {
        int mode = input[0];
        byte[] rest = Arrays.copyOfRange(input, 1, input.length);
        byte[] file = (mode & 1) != 0 ? withHeader(rest, 1) : rest;
        if ((mode & 2) != 0) {
            fixCrcs(file);
        }
        boolean older = (mode & 4) != 0;
        Path first = dir.resolve(RecordFormat.segmentFileName(1));
        Files.write(first, file);
        if (older) {
            Files.write(dir.resolve(RecordFormat.segmentFileName(2)), withHeader(new byte[0], 2));
        }
        Model model = Model.of(file);

        ElasticStore store;
        try {
            store = ElasticStore.open(config(dir));
        } catch (StoreException e) {
            assertThat(e.getMessage()).isNotBlank();
            assertThat(model.headerGood).as("a segment with a good header refused: " + e.getMessage()).isFalse();
            return;
        }
        try {
            assertThat(model.headerGood || file.length <= RecordFormat.SEGMENT_HEADER_SIZE && !older)
                    .as("a segment with a bad header accepted").isTrue();
            for (Map.Entry<String, byte[]> entry : model.live.entrySet()) {
                byte[] key = HexFormat.of().parseHex(entry.getKey());
                if (withinLimits(key, entry.getValue())) {
                    assertThat(store.get(key)).as("value of key " + entry.getKey()).isEqualTo(entry.getValue());
                }
            }
            for (String deleted : model.deleted) {
                byte[] key = HexFormat.of().parseHex(deleted);
                if (withinLimits(key, new byte[0])) {
                    assertThat(store.get(key)).as("deleted key " + deleted).isNull();
                }
            }
        } finally {
            store.close();
        }
        if (model.headerGood) {
            long expected = older ? file.length : model.validEnd;
            assertThat(Files.size(first)).as("segment size after recovery").isEqualTo(expected);
        }
    }

    private static boolean withinLimits(byte[] key, byte[] value) {
        return key.length >= 1 && key.length <= MAX_KEY_SIZE && value.length <= MAX_VALUE_SIZE;
    }

    private static ElasticStoreConfig config(Path dir) {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).fsyncPolicy(FsyncPolicy.NEVER)
                .segmentSizeBytes(64 << 10).indexCapacity(1_024).averageKeySize(16).averageValueSize(64)
                .maxKeySize(MAX_KEY_SIZE).maxValueSize(MAX_VALUE_SIZE).compactionIntervalMillis(0)
                .checkpointIntervalMillis(0).build();
    }

    private static byte[] withHeader(byte[] records, int segmentId) {
        ByteBuffer file = ByteBuffer.allocate(RecordFormat.SEGMENT_HEADER_SIZE + records.length);
        RecordFormat.encodeSegmentHeader(file, segmentId);
        file.put(records);
        return file.array();
    }

    /** Rewrites the CRC of each record whose body fits in the file, front to back. */
    private static void fixCrcs(byte[] file) {
        ByteBuffer buf = ByteBuffer.wrap(file);
        CRC32C crc = new CRC32C();
        int pos = RecordFormat.SEGMENT_HEADER_SIZE;
        while (pos + RecordFormat.RECORD_HEADER_SIZE <= file.length) {
            int bodyLength = buf.getInt(pos);
            if (bodyLength < RecordFormat.BODY_FIXED_SIZE || bodyLength > file.length - pos - 8) {
                return;
            }
            buf.putInt(pos + 4, RecordFormat.crc(crc, buf, pos + 8, bodyLength));
            pos += 8 + bodyLength;
        }
    }

    /** What the documented layout (docs/store.md) says a segment holds, read without the store's code. */
    private static final class Model {
        boolean headerGood;
        long validEnd;
        final Map<String, byte[]> live = new HashMap<>();
        final Set<String> deleted = new HashSet<>();

        static Model of(byte[] file) {
            Model m = new Model();
            ByteBuffer buf = ByteBuffer.wrap(file);
            m.headerGood = file.length >= 16 && buf.getLong(0) == RecordFormat.MAGIC
                    && buf.getInt(8) == RecordFormat.VERSION && buf.getInt(12) == 1;
            if (!m.headerGood) {
                return m;
            }
            CRC32C crc = new CRC32C();
            int pos = 16;
            while (pos + 24 <= file.length) {
                int bodyLength = buf.getInt(pos);
                byte type = buf.get(pos + 8);
                int keyLength = Short.toUnsignedInt(buf.getShort(pos + 10));
                int valueLength = buf.getInt(pos + 12);
                if (bodyLength < 16 || valueLength < 0 || bodyLength != 16L + keyLength + valueLength
                        || type != 1 && type != 2 || 8L + bodyLength > file.length - pos) {
                    break;
                }
                crc.reset();
                crc.update(file, pos + 8, bodyLength);
                if ((int) crc.getValue() != buf.getInt(pos + 4)) {
                    break;
                }
                String key = HexFormat.of().formatHex(file, pos + 24, pos + 24 + keyLength);
                if (type == 1) {
                    m.live.put(key, Arrays.copyOfRange(file, pos + 24 + keyLength, pos + 24 + keyLength + valueLength));
                    m.deleted.remove(key);
                } else {
                    m.live.remove(key);
                    m.deleted.add(key);
                }
                pos += 8 + bodyLength;
            }
            m.validEnd = pos;
            return m;
        }
    }
}
