// ElasticStoreTest -- behaviour of the store API on real files: round trips, limits, restart, locking.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreLockedException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ElasticStoreTest {

    @TempDir
    Path dir;

    private ElasticStoreConfig.Builder config() {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(1 << 20).indexCapacity(10_000).fsyncPolicy(FsyncPolicy.NEVER)
                .segmentSizeBytes(256 << 10);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void getIntoBufferCopiesOnlyWhenItFits() {
        try (ElasticStore store = ElasticStore.open(config().memoryBudgetBytes(0).build())) {
            store.put(b("k"), b("hello"));
            ByteBuffer small = ByteBuffer.allocate(3);
            assertThat(store.get(b("k"), small)).isEqualTo(5);
            assertThat(small.position()).isZero();
            ByteBuffer direct = ByteBuffer.allocateDirect(16);
            assertThat(store.get(b("k"), direct)).isEqualTo(5);
            assertThat(direct.position()).isEqualTo(5);
            assertThat(store.get(b("absent"), direct)).isEqualTo(KeyValueStore.NOT_FOUND);
        }
    }

    @Test
    void oversizeKeyAndValueAreRejectedNamingTheLimit() {
        try (ElasticStore store = ElasticStore.open(config().maxKeySize(16).averageKeySize(8).maxValueSize(100).build())) {
            assertThatThrownBy(() -> store.put(new byte[17], b("v")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxKeySize")
                    .hasMessageContaining("16");
            assertThatThrownBy(() -> store.put(b("k"), new byte[101]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxValueSize")
                    .hasMessageContaining("100");
            assertThatThrownBy(() -> store.put(new byte[0], b("v"))).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.size()).isZero();
        }
    }

    @Test
    void theWriteSequenceMovesWithEveryWriteAndSurvivesAReopen() {
        long afterWrites;
        try (ElasticStore store = ElasticStore.open(config().build())) {
            long empty = store.writeSequence().orElseThrow();
            store.put(b("a"), b("1"));
            long afterPut = store.writeSequence().orElseThrow();
            assertThat(afterPut).isGreaterThan(empty);
            store.get(b("a"));
            store.forEach((k, v) -> { });
            assertThat(store.writeSequence().orElseThrow()).as("reads write nothing").isEqualTo(afterPut);
            store.delete(b("a"));
            assertThat(store.writeSequence().orElseThrow()).isGreaterThan(afterPut);
            store.putAll(java.util.List.of(Map.entry(b("b"), b("2")), Map.entry(b("c"), b("3"))));
            afterWrites = store.writeSequence().orElseThrow();
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThat(store.writeSequence().orElseThrow()).isEqualTo(afterWrites);
            store.put(b("d"), b("4"));
            assertThat(store.writeSequence().orElseThrow()).isGreaterThan(afterWrites);
        }
    }

    @Test
    void everythingSurvivesARestart() {
        Map<String, String> expected = new HashMap<>();
        try (ElasticStore store = ElasticStore.open(config().build())) {
            for (int i = 0; i < 2000; i++) {
                store.put(b("key-" + i), b("value-" + i + "-".repeat(i % 300)));
                expected.put("key-" + i, "value-" + i + "-".repeat(i % 300));
            }
            for (int i = 0; i < 2000; i += 3) {
                store.delete(b("key-" + i));
                expected.remove("key-" + i);
            }
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThat(store.size()).isEqualTo(expected.size());
            Map<String, String> seen = new HashMap<>();
            store.forEach((k, v) -> seen.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
            assertThat(seen.size()).isEqualTo(expected.size());
            for (Map.Entry<String, String> e : expected.entrySet()) {
                assertThat(seen.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    @Test
    void aSecondStoreOnTheSameDirectoryIsRefused() {
        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThatThrownBy(() -> ElasticStore.open(config().build()))
                    .isInstanceOf(StoreLockedException.class).hasMessageContaining("already open");
            store.put(b("k"), b("v"));
        }
        try (ElasticStore again = ElasticStore.open(config().build())) {
            assertThat(again.get(b("k"))).isEqualTo(b("v"));
        }
    }

    @Test
    void resizeMovesEntriesIntoMemoryAndBack() throws Exception {
        try (ElasticStore store = ElasticStore.open(config().memoryBudgetBytes(0).build())) {
            for (int i = 0; i < 500; i++) {
                store.put(b("key-" + i), new byte[1000]);
            }
            assertThat(store.stats().memoryEntries()).isZero();
            ResizeOperation up = store.resize(4 << 20);
            assertThat(up.await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            assertThat(store.stats().memoryEntries()).isEqualTo(500);
            assertThat(up.entriesMoved()).isEqualTo(500);
            ResizeOperation down = store.resize(100 * (1000 + 64 + 8));
            assertThat(down.await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            assertThat(store.stats().memoryEntries()).isBetween(90L, 100L);
            for (int i = 0; i < 500; i++) {
                assertThat(store.get(b("key-" + i))).hasSize(1000);
            }
        }
    }

    @Test
    void openingWithoutLoadStartsAnEmptyTierThatMissesFill() throws Exception {
        try (ElasticStore store = ElasticStore.open(config().build())) {
            for (int i = 0; i < 200; i++) {
                store.put(b("key-" + i), new byte[1000]);
            }
        }
        try (ElasticStore loaded = ElasticStore.open(config().build())) {
            awaitResize(loaded);
            assertThat(loaded.stats().memoryEntries()).isEqualTo(200);
        }
        try (ElasticStore empty = ElasticStore.open(config().loadOnOpen(false).build())) {
            awaitResize(empty);
            assertThat(empty.stats().memoryEntries()).isZero();
            for (int i = 0; i < 200; i++) {
                assertThat(empty.get(b("key-" + i))).hasSize(1000);
            }
            assertThat(empty.stats().memoryEntries()).isPositive(); // the misses were admitted
        }
    }

    private static void awaitResize(ElasticStore store) throws Exception {
        ResizeOperation open = store.lastResize();
        assertThat(open.await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
    }

    @Test
    void compactionReclaimsOverwrittenSegments() {
        try (ElasticStore store = ElasticStore.open(config().compactionIntervalMillis(0).build())) {
            byte[] value = new byte[2000];
            for (int round = 0; round < 10; round++) {
                for (int i = 0; i < 200; i++) {
                    value[0] = (byte) round;
                    store.put(b("key-" + i), value);
                }
            }
            long before = store.stats().diskBytes();
            assertThat(store.compactNow()).isPositive();
            assertThat(store.stats().diskBytes()).isLessThan(before);
            for (int i = 0; i < 200; i++) {
                assertThat(store.get(b("key-" + i))[0]).isEqualTo((byte) 9);
            }
        }
        try (ElasticStore store = ElasticStore.open(config().build())) {
            assertThat(store.size()).isEqualTo(200);
            assertThat(store.get(b("key-7"))[0]).isEqualTo((byte) 9);
        }
    }
}
