// DirectReadsTest -- lookups that read records past the page cache (O_DIRECT) return what the buffered path does.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.elastic.log.RecordFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store with {@link ElasticStoreConfig.Builder#directReads} reads each record as the whole aligned blocks around
 * it. These tests put records at every alignment (sizes from 0 bytes to several blocks, so records start and end
 * anywhere in a block), the last one ending inside the file's last, partial block, and read them back with no
 * memory tier, so every lookup goes to disk: before a close (the pages still dirty in the page cache, which an
 * {@code O_DIRECT} read must see) and after a reopen. They run on the file system of the temporary directory;
 * where it refuses {@code O_DIRECT} (tmpfs) the store falls back to buffered reads, which the first test checks.
 */
class DirectReadsTest {

    @TempDir
    Path dir;

    private ElasticStoreConfig.Builder config(boolean direct) {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).fsyncPolicy(FsyncPolicy.NEVER)
                .segmentSizeBytes(64 << 10).indexCapacity(10_000).compactionIntervalMillis(0)
                .checkpointIntervalMillis(0).directReads(direct);
    }

    @Test
    void readsDirectOnlyWhenAskedAndTheFileSystemAllowsIt() throws IOException {
        try (ElasticStore store = ElasticStore.open(config(false).build())) {
            assertThat(store.readsDirect()).isFalse();
        }
        try (ElasticStore store = ElasticStore.open(config(true).build())) {
            assertThat(store.readsDirect()).isEqualTo(fileSystemAllowsDirect());
        }
    }

    @Test
    void everyAlignmentReadsBackBeforeAndAfterAReopen() throws IOException {
        assumeTrue(fileSystemAllowsDirect(), "the temporary directory's file system refuses O_DIRECT");
        Map<String, byte[]> written = new LinkedHashMap<>();
        Random random = new Random(42);
        try (ElasticStore store = ElasticStore.open(config(true).build())) {
            assertThat(store.readsDirect()).isTrue();
            for (int i = 0; i < 400; i++) {
                byte[] value = new byte[size(i, random)];
                random.nextBytes(value);
                String key = "key-" + i;
                store.put(bytes(key), value);
                written.put(key, value);
                assertThat(store.get(bytes(key))).as("the newest record, its pages dirty").isEqualTo(value);
            }
            checkAll(store, written);
        }
        try (ElasticStore store = ElasticStore.open(config(true).build())) {
            checkAll(store, written);
        }
        try (ElasticStore store = ElasticStore.open(config(false).build())) {
            checkAll(store, written);
        }
    }

    @Test
    void aFlippedByteIsFoundByTheDirectReadToo() throws IOException {
        assumeTrue(fileSystemAllowsDirect(), "the temporary directory's file system refuses O_DIRECT");
        byte[] value = new byte[5000];
        new Random(7).nextBytes(value);
        try (ElasticStore store = ElasticStore.open(config(true).build())) {
            store.put(bytes("victim"), value);
            store.put(bytes("other"), bytes("still fine"));
        }
        Path segment;
        try (var files = Files.list(dir)) {
            segment = files.filter(p -> RecordFormat.parseSegmentFileName(p.getFileName().toString()) >= 0)
                    .sorted().findFirst().orElseThrow();
        }
        long at = RecordFormat.SEGMENT_HEADER_SIZE + RecordFormat.RECORD_HEADER_SIZE + "victim".length() + 4100;
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
            ch.write(b, at);
        }
        try (ElasticStore store = ElasticStore.open(config(true).build())) {
            assertThat(store.readsDirect()).isTrue();
            assertThatThrownBy(() -> store.get(bytes("victim"))).isInstanceOf(CorruptRecordException.class)
                    .hasMessageContaining("CRC32C mismatch");
            assertThat(store.get(bytes("other"))).isEqualTo(bytes("still fine"));
        }
    }

    /** Sizes that move the next record's start through every position of a block, and some over a block. */
    private static int size(int i, Random random) {
        return switch (i % 5) {
            case 0 -> random.nextInt(64);
            case 1 -> 4096 - RecordFormat.RECORD_HEADER_SIZE - 6 + random.nextInt(12);
            case 2 -> 4096 + random.nextInt(8192);
            default -> random.nextInt(4096);
        };
    }

    private static void checkAll(ElasticStore store, Map<String, byte[]> written) {
        ByteBuffer direct = ByteBuffer.allocateDirect(16384);
        for (Map.Entry<String, byte[]> e : written.entrySet()) {
            assertThat(store.get(bytes(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
            direct.clear();
            assertThat(store.get(bytes(e.getKey()), direct)).isEqualTo(e.getValue().length);
        }
    }

    private boolean fileSystemAllowsDirect() throws IOException {
        return DirectIoProbe.allowed(dir);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
