// CorruptionTest -- damaged files on disk: a flipped byte, a torn tail, a lost index or checkpoint, a held lock.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.StoreLockedException;
import io.elastikey.store.elastic.index.Checkpoint;
import io.elastikey.store.elastic.log.RecordFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the store does with files that were damaged while it was closed, and with a second opener
 * of a directory in use. Each damage test writes through the API, closes the store, changes the
 * files the way a bad disk, a torn write or an operator would (the layouts are in
 * {@link RecordFormat} and {@link Checkpoint}), and reopens.
 */
class CorruptionTest {

    @TempDir
    Path dir;

    /** Every key ever written, and what it must hold now (null: deleted). */
    private final Map<String, byte[]> expected = new HashMap<>();

    private ElasticStoreConfig.Builder config() {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).fsyncPolicy(FsyncPolicy.NEVER)
                .segmentSizeBytes(64 << 10).indexCapacity(10_000).averageValueSize(800)
                .compactionIntervalMillis(0).checkpointIntervalMillis(0);
    }

    // ---- a damaged record in a sealed segment -----------------------------------------------

    @Test
    void aFlippedValueByteFailsOnlyThatKeyAndAPutHealsIt() throws IOException {
        writeKeys(300, 1);
        Damaged d = flipAValueByteInTheOldestSegment();

        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThatThrownBy(() -> store.get(d.key()))
                    .isInstanceOf(CorruptRecordException.class)
                    .hasMessageContaining(d.segment().getFileName().toString());
            assertThatThrownBy(() -> store.get(d.key(), ByteBuffer.allocate(8192)))
                    .isInstanceOf(CorruptRecordException.class);
            assertThatThrownBy(() -> store.get(d.key(), ByteBuffer.allocateDirect(8192)))
                    .isInstanceOf(CorruptRecordException.class);
            assertThat(store.contains(d.key())).isTrue();
            assertThat(store.size()).isEqualTo(300);
            checkAllExcept(store, d.name());

            byte[] healed = value(d.name(), 2);
            store.put(d.key(), healed);
            expected.put(d.name(), healed);
            assertThat(store.get(d.key())).isEqualTo(healed);
            ByteBuffer buf = ByteBuffer.allocateDirect(8192);
            assertThat(store.get(d.key(), buf)).isEqualTo(healed.length);
            checkAll(store);
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            checkAll(store);
        }
    }

    @Test
    void aDamagedRecordDoesNotStopAResizeFromLoadingTheOtherEntries() throws Exception {
        writeKeys(300, 1);
        Damaged d = flipAValueByteInTheOldestSegment();

        try (ElasticStore store = ElasticStore.open(config().build())) {
            ResizeOperation up = store.resize(8L << 20);
            assertThat(up.await(60, TimeUnit.SECONDS)).as("%s, failure %s", up, up.failure())
                    .isEqualTo(ResizeOperation.State.DONE);
            assertThat(store.stats().memoryEntries()).isEqualTo(299);
            assertThatThrownBy(() -> store.get(d.key())).isInstanceOf(CorruptRecordException.class);
            checkAllExcept(store, d.name());
        }
    }

    @Test
    void compactionLeavesASegmentWithADamagedRecordInPlace() throws IOException {
        writeKeys(300, 1);
        Damaged d = flipAValueByteInTheOldestSegment();
        List<String> inOldest = keysOf(records(d.segment()));

        try (ElasticStore store = ElasticStore.open(config().compactionGarbageRatio(0.3).build())) {
            // Make the damaged segment mostly garbage, but keep a few of its records live, some of
            // them after the damaged one.
            for (int i = 0; i < inOldest.size(); i++) {
                String name = inOldest.get(i);
                if (!name.equals(d.name()) && i % 5 != 0) {
                    put(store, name, value(name, 3));
                }
            }
            store.compactNow();
            assertThat(d.segment()).exists();
            assertThatThrownBy(() -> store.get(d.key())).isInstanceOf(CorruptRecordException.class);
            checkAllExcept(store, d.name());
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            checkAllExcept(store, d.name());
        }
    }

    // ---- a torn write at the tail of the log ------------------------------------------------

    /** What a crash may leave after the last complete record of the newest segment. */
    enum Tail {
        /** Blocks the file system allocated but never filled. */
        ZEROS,
        /** Whatever was on the disk. */
        RANDOM_BYTES,
        /** The first 10 bytes of a record header. */
        PART_OF_A_HEADER,
        /** A record cut in the middle of its value. */
        HALF_A_RECORD,
        /** A record of full length whose value did not all reach the disk. */
        WHOLE_RECORD_WITH_A_BAD_CRC;

        byte[] bytes(Random rnd) {
            byte[] value = new byte[3000];
            rnd.nextBytes(value);
            ByteBuffer rec = ByteBuffer.allocate(RecordFormat.recordLength(4, value.length));
            RecordFormat.encode(rec, new CRC32C(), RecordFormat.TYPE_PUT, 1L << 40, "torn".getBytes(StandardCharsets.UTF_8),
                    value, value.length);
            byte[] whole = rec.array();
            return switch (this) {
                case ZEROS -> new byte[4096];
                case RANDOM_BYTES -> randomBytes(rnd, 1 + rnd.nextInt(600));
                case PART_OF_A_HEADER -> Arrays.copyOf(whole, 10);
                case HALF_A_RECORD -> Arrays.copyOf(whole, whole.length / 2);
                case WHOLE_RECORD_WITH_A_BAD_CRC -> {
                    whole[whole.length - 100] ^= 0x40;
                    yield whole;
                }
            };
        }
    }

    @ParameterizedTest
    @EnumSource(Tail.class)
    void garbageAfterTheLastRecordIsTruncatedAndWritesContinue(Tail tail) throws IOException {
        writeKeys(250, 1);
        try (ElasticStore store = ElasticStore.open(config().build())) {
            for (int i = 0; i < 250; i += 5) {
                delete(store, "key-" + i);
            }
            for (int i = 1; i < 250; i += 7) {
                put(store, "key-" + i, value("key-" + i, 2));
            }
        }
        Path newest = segmentFiles().get(segmentFiles().size() - 1);
        long validSize = Files.size(newest);
        appendTo(newest, tail.bytes(new Random(tail.ordinal())));

        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThat(Files.size(newest)).as("the newest segment after recovery").isEqualTo(validSize);
            checkAll(store);
            for (int i = 250; i < 300; i++) {
                put(store, "key-" + i, value("key-" + i, 1));
            }
            delete(store, "key-1");
            checkAll(store);
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            checkAll(store);
        }
    }

    // ---- the directory lock (a refused second open is covered by ElasticStoreTest) ----------

    @Test
    void aRefusedOpenNamesTheDirectoryAndTheOwningProcess() {
        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThatThrownBy(() -> ElasticStore.open(config().build()))
                    .isInstanceOf(StoreLockedException.class)
                    .hasMessageContaining(dir.toString())
                    .hasMessageContaining(Long.toString(ProcessHandle.current().pid()));
            store.put(bytes("k"), bytes("v"));
            assertThat(store.get(bytes("k"))).isEqualTo(bytes("v"));
        }
    }

    @Test
    void aRefusedOpenInThisJvmKeepsOtherProcessesLockedOut() throws Exception {
        try (ElasticStore store = ElasticStore.open(config().build())) {
            store.put(bytes("k"), bytes("v"));
            ChildJvm.Result before = probeLock("before");
            assertThat(before.exitCode()).as("another process taking the lock:\n%s", before.output())
                    .isZero();

            assertThatThrownBy(() -> ElasticStore.open(config().build())).isInstanceOf(StoreLockedException.class);

            ChildJvm.Result after = probeLock("after");
            assertThat(after.exitCode())
                    .as("another process taking the lock after a refused open in this JVM:\n%s", after.output())
                    .isZero();
            assertThat(store.get(bytes("k"))).isEqualTo(bytes("v"));
        }
    }

    private ChildJvm.Result probeLock(String name) throws Exception {
        Path out = Files.createTempFile("lock-probe-" + name, ".txt");
        try {
            return ChildJvm.run(ChildJvm.command(ChildJvm.buildJvmFlags(), LockProbe.class, dir.toString()), out, 120);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    // ---- a lost or damaged index or checkpoint ------------------------------------------------

    /** Damage to the files that only speed up a restart: the log alone has all the data. */
    enum IndexDamage {
        INDEX_DELETED,
        INDEX_EMPTIED,
        /**
         * Chronicle rejects this garbage at once (the header size it reads points past the end of
         * the file); garbage that reads as a header still being written makes it wait a minute
         * for the writer before giving up, too slow for a unit test.
         */
        INDEX_HEADER_OVERWRITTEN,
        CHECKPOINT_DELETED,
        CHECKPOINT_BYTE_FLIPPED,
        CHECKPOINT_TRUNCATED,
        BOTH_DELETED;

        void apply(Path dir) throws IOException {
            Path index = dir.resolve(ElasticStore.INDEX_FILE);
            Path checkpoint = dir.resolve(Checkpoint.FILE_NAME);
            switch (this) {
                case INDEX_DELETED -> Files.delete(index);
                case INDEX_EMPTIED -> Files.write(index, new byte[0]);
                case INDEX_HEADER_OVERWRITTEN -> overwrite(index, 0, randomBytes(new Random(1), 4096));
                case CHECKPOINT_DELETED -> Files.delete(checkpoint);
                case CHECKPOINT_BYTE_FLIPPED -> {
                    byte[] b = Files.readAllBytes(checkpoint);
                    b[13] ^= 0x01; // inside the offset field
                    Files.write(checkpoint, b);
                }
                case CHECKPOINT_TRUNCATED -> Files.write(checkpoint, Arrays.copyOf(Files.readAllBytes(checkpoint), 20));
                case BOTH_DELETED -> {
                    Files.delete(index);
                    Files.delete(checkpoint);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(IndexDamage.class)
    void theIndexIsRebuiltFromTheLogAndDeletedKeysStayDeleted(IndexDamage damage) throws IOException {
        int compacted = writeAHistoryWithOverwritesDeletesAndCompaction();
        assertThat(compacted).as("precondition: compaction removed segments").isPositive();
        damage.apply(dir);

        try (ElasticStore store = ElasticStore.open(config().build())) {
            checkAll(store);
            put(store, "after-rebuild", value("after-rebuild", 1));
            delete(store, "key-2");
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            checkAll(store);
        }
    }

    /** Three rounds of writes, deletes and compactions; returns the segments compacted away. */
    private int writeAHistoryWithOverwritesDeletesAndCompaction() {
        int compacted = 0;
        try (ElasticStore store = ElasticStore.open(config().compactionGarbageRatio(0.3).build())) {
            for (int i = 0; i < 400; i++) {
                put(store, "key-" + i, value("key-" + i, 1));
            }
            for (int i = 0; i < 400; i += 3) {
                delete(store, "key-" + i);
            }
            compacted += store.compactNow();
            for (int i = 0; i < 400; i += 4) {
                put(store, "key-" + i, value("key-" + i, 2)); // brings back every 12th key
            }
            compacted += store.compactNow();
            for (int i = 0; i < 400; i += 7) {
                delete(store, "key-" + i);
            }
            for (int i = 1; i < 400; i += 2) {
                put(store, "key-" + i, value("key-" + i, 3));
            }
            compacted += store.compactNow();
            for (int i = 400; i < 450; i++) {
                put(store, "key-" + i, value("key-" + i, 1));
            }
        }
        return compacted;
    }

    // ---- writing and checking ------------------------------------------------------------------

    private void writeKeys(int n, int version) {
        try (ElasticStore store = ElasticStore.open(config().build())) {
            for (int i = 0; i < n; i++) {
                put(store, "key-" + i, value("key-" + i, version));
            }
        }
    }

    private void put(ElasticStore store, String name, byte[] value) {
        store.put(bytes(name), value);
        expected.put(name, value);
    }

    private void delete(ElasticStore store, String name) {
        assertThat(store.delete(bytes(name))).as("delete(%s)", name).isEqualTo(expected.get(name) != null);
        expected.put(name, null);
    }

    private void checkAll(ElasticStore store) {
        checkAllExcept(store, null);
        Map<String, byte[]> seen = new HashMap<>();
        store.forEach((k, v) -> seen.put(new String(k, StandardCharsets.UTF_8), v));
        assertThat(new TreeSet<>(seen.keySet())).as("keys forEach visits").isEqualTo(new TreeSet<>(present()));
        assertThat(store.size()).isEqualTo(present().size());
    }

    /** Every key reads as expected (deleted ones as absent), except {@code skip}. */
    private void checkAllExcept(ElasticStore store, String skip) {
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            if (e.getKey().equals(skip)) {
                continue;
            }
            byte[] actual = store.get(bytes(e.getKey()));
            if (e.getValue() == null) {
                assertThat(actual).as("%s was deleted", e.getKey()).isNull();
                assertThat(store.contains(bytes(e.getKey()))).as("contains(%s) after its delete", e.getKey()).isFalse();
            } else {
                assertThat(actual).as("value of %s", e.getKey()).isNotNull();
                assertThat(Arrays.equals(actual, e.getValue())).as("value of %s is intact", e.getKey()).isTrue();
            }
        }
    }

    private List<String> present() {
        return expected.entrySet().stream().filter(e -> e.getValue() != null).map(Map.Entry::getKey).toList();
    }

    /** A value of 200 to 1400 bytes that depends on the key and version. */
    private static byte[] value(String name, int version) {
        Random r = new Random(name.hashCode() * 31L + version);
        return randomBytes(r, 200 + r.nextInt(1200));
    }

    private static byte[] randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- the files -----------------------------------------------------------------------------

    /** The key, its record's segment file, after one byte of its value was flipped. */
    private record Damaged(String name, byte[] key, Path segment) {
    }

    /** With the store closed: flips a byte in the middle of the value of a record in the middle of segment 1. */
    private Damaged flipAValueByteInTheOldestSegment() throws IOException {
        List<Path> segments = segmentFiles();
        assertThat(segments).as("precondition: several segments").hasSizeGreaterThan(2);
        Path oldest = segments.get(0);
        List<SegmentRecord> records = records(oldest);
        SegmentRecord victim = records.get(records.size() / 2);
        long at = victim.valueOffset() + victim.valueLength() / 2;
        ByteBuffer one = ByteBuffer.allocate(1);
        try (FileChannel ch = FileChannel.open(oldest, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x10)).clear();
            ch.write(one, at);
        }
        String name = new String(victim.key(), StandardCharsets.UTF_8);
        return new Damaged(name, victim.key(), oldest);
    }

    private List<Path> segmentFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> RecordFormat.parseSegmentFileName(p.getFileName().toString()) >= 0).sorted()
                    .toList();
        }
    }

    /** A record as {@link RecordFormat} lays it out, found by walking a segment file. */
    private record SegmentRecord(long offset, byte type, byte[] key, long valueOffset, int valueLength) {
    }

    private static List<SegmentRecord> records(Path segment) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(segment));
        List<SegmentRecord> out = new ArrayList<>();
        int pos = RecordFormat.SEGMENT_HEADER_SIZE;
        while (pos + RecordFormat.RECORD_HEADER_SIZE <= b.limit()) {
            int bodyLength = b.getInt(pos);
            int keyLength = Short.toUnsignedInt(b.getShort(pos + 10));
            int valueLength = b.getInt(pos + 12);
            byte[] key = new byte[keyLength];
            b.get(pos + RecordFormat.RECORD_HEADER_SIZE, key);
            out.add(new SegmentRecord(pos, b.get(pos + 8), key, pos + RecordFormat.RECORD_HEADER_SIZE + keyLength,
                    valueLength));
            pos += 8 + bodyLength;
        }
        return out;
    }

    private static List<String> keysOf(List<SegmentRecord> records) {
        return records.stream().filter(r -> r.type() == RecordFormat.TYPE_PUT)
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
    }

    private static void appendTo(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }
    }

    private static void overwrite(Path file, long at, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b, at + b.position());
            }
        }
    }
}
