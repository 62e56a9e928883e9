// LiveBytesFileTest -- a clean close's segment counts spare the next open its walk, and never stand in for a wrong one.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.log.Segment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LiveBytesFileTest {
    @TempDir
    Path dir;

    private ElasticStore open() {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10).compactionGarbageRatio(0.95)
                .compactionIntervalMillis(0).checkpointIntervalMillis(0).build());
    }

    /** Several segments with overwritten and deleted entries, so live and written bytes differ in each. */
    private void fill(ElasticStore store, int round) {
        for (int i = 0; i < 600; i++) {
            store.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[200 + round + i % 7]);
            if (i % 5 == 0) {
                store.delete(("key-" + (i / 2)).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private static Map<Integer, Long> live(ElasticStore store) {
        Map<Integer, Long> live = new LinkedHashMap<>();
        for (Segment s : store.log.segments()) {
            live.put(s.id(), s.liveBytes());
        }
        return live;
    }

    /** The counts a walk of the index gives: opened with the file removed first. */
    private Map<Integer, Long> walked() throws Exception {
        Files.deleteIfExists(dir.resolve(LiveBytesFile.FILE_NAME));
        try (ElasticStore store = open()) {
            return live(store);
        }
    }

    @Test
    void anOpenAfterACleanCloseTakesTheSavedCountsWhichEqualAWalk() throws Exception {
        try (ElasticStore store = open()) {
            fill(store, 0);
            fill(store, 1);
        }
        Path file = dir.resolve(LiveBytesFile.FILE_NAME);
        assertThat(file).exists();
        byte[] saved = Files.readAllBytes(file);

        Map<Integer, Long> fromFile;
        try (ElasticStore store = open()) {
            assertThat(file).as("read once").doesNotExist();
            fromFile = live(store);
        }
        Files.write(file, saved); // the same close's counts again, for the walk to be compared with
        assertThat(fromFile).hasSizeGreaterThan(2).isEqualTo(walked());
        assertThat(fromFile.values()).anySatisfy(v -> assertThat(v).isPositive());
    }

    @Test
    void theCountsComeFromTheFileNotFromAWalk() throws Exception {
        try (ElasticStore store = open()) {
            fill(store, 0);
        }
        Path file = dir.resolve(LiveBytesFile.FILE_NAME);
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        long firstLive = bytes.getLong(20 + 4 + 8);
        bytes.putLong(20 + 4 + 8, firstLive - 1); // a well-formed file whose first count is one byte short
        CRC32C crc = new CRC32C();
        crc.update(bytes.array(), 0, bytes.capacity() - 4);
        bytes.putInt(bytes.capacity() - 4, (int) crc.getValue());
        byte[] marked = bytes.array();
        Files.write(file, marked);

        Map<Integer, Long> opened;
        try (ElasticStore store = open()) {
            opened = live(store);
        }
        Map<Integer, Long> walk = walked();
        int first = walk.keySet().iterator().next();
        assertThat(opened.get(first)).isEqualTo(walk.get(first) - 1);
    }

    @Test
    void countsSavedBeforeLaterWritesAreNotTaken() throws Exception {
        try (ElasticStore store = open()) {
            fill(store, 0);
        }
        byte[] old = Files.readAllBytes(dir.resolve(LiveBytesFile.FILE_NAME));
        try (ElasticStore store = open()) {
            fill(store, 2);
        }
        Files.write(dir.resolve(LiveBytesFile.FILE_NAME), old); // a stale file, as a restored backup would leave

        Map<Integer, Long> opened;
        try (ElasticStore store = open()) {
            opened = live(store);
        }
        assertThat(opened).isEqualTo(walked());
    }

    @Test
    void aDamagedFileIsAWalk() throws Exception {
        try (ElasticStore store = open()) {
            fill(store, 0);
        }
        Path file = dir.resolve(LiveBytesFile.FILE_NAME);
        byte[] bytes = Files.readAllBytes(file);
        byte[] damaged = Arrays.copyOf(bytes, bytes.length);
        damaged[30] ^= 0x01; // inside the first segment's counts; the CRC no longer matches
        Files.write(file, damaged);

        Map<Integer, Long> opened;
        try (ElasticStore store = open()) {
            opened = live(store);
        }
        assertThat(opened).isEqualTo(walked());
    }
}
