package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ElasticStore#compute}: one read and one write of a key with no other write of it between. */
class ElasticStoreComputeTest {

    @TempDir
    Path dir;

    private ElasticStoreConfig config(FsyncPolicy fsync) {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(1 << 20).indexCapacity(10_000).fsyncPolicy(fsync)
                .segmentSizeBytes(256 << 10).maxValueSize(1024).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anAbsentKeyIsSeenAsNullAndTheNewValueIsDurable() {
        try (ElasticStore store = ElasticStore.open(config(FsyncPolicy.GROUP))) {
            List<byte[]> seen = new ArrayList<>();
            byte[] before = store.compute(b("k"), v -> {
                seen.add(v);
                return b("one");
            });
            assertThat(before).isNull();
            assertThat(seen).containsExactly((byte[]) null);
            assertThat(store.get(b("k"))).isEqualTo(b("one"));
            assertThat(store.compute(b("k"), v -> b("two"))).isEqualTo(b("one"));
        }
        try (ElasticStore reopened = ElasticStore.open(config(FsyncPolicy.GROUP))) {
            assertThat(reopened.get(b("k"))).isEqualTo(b("two"));
        }
    }

    @Test
    void theSameArrayBackMeansUnchangedAndWritesNothing() {
        try (ElasticStore store = ElasticStore.open(config(FsyncPolicy.NEVER))) {
            store.put(b("k"), b("v"));
            long disk = store.stats().diskBytes();
            assertThat(store.compute(b("k"), v -> v)).isEqualTo(b("v"));
            assertThat(store.compute(b("absent"), v -> v)).isNull();
            assertThat(store.stats().diskBytes()).isEqualTo(disk);
            assertThat(store.contains(b("absent"))).isFalse();
            // an equal value in a new array is a write, as a put of it would be
            store.compute(b("k"), v -> Arrays.copyOf(v, v.length));
            assertThat(store.stats().diskBytes()).isGreaterThan(disk);
        }
    }

    @Test
    void nullDeletesAPresentKeyAndIsNothingForAnAbsentOne() {
        try (ElasticStore store = ElasticStore.open(config(FsyncPolicy.NEVER))) {
            store.put(b("k"), b("v"));
            assertThat(store.compute(b("k"), v -> null)).isEqualTo(b("v"));
            assertThat(store.get(b("k"))).isNull();
            assertThat(store.size()).isZero();
            long disk = store.stats().diskBytes();
            assertThat(store.compute(b("k"), v -> null)).isNull();
            assertThat(store.stats().diskBytes()).as("no tombstone for an absent key").isEqualTo(disk);
        }
        try (ElasticStore reopened = ElasticStore.open(config(FsyncPolicy.NEVER))) {
            assertThat(reopened.get(b("k"))).isNull();
        }
    }

    @Test
    void whatTheRemapThrowsReachesTheCallerWithNothingWritten() {
        try (ElasticStore store = ElasticStore.open(config(FsyncPolicy.NEVER))) {
            store.put(b("k"), b("v"));
            long disk = store.stats().diskBytes();
            assertThatThrownBy(() -> store.compute(b("k"), v -> {
                throw new IllegalStateException("refused");
            })).isInstanceOf(IllegalStateException.class).hasMessage("refused");
            assertThatThrownBy(() -> store.compute(b("k"), v -> new byte[2048]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxValueSize");
            assertThat(store.get(b("k"))).isEqualTo(b("v"));
            assertThat(store.stats().diskBytes()).isEqualTo(disk);
            // and the key's stripe lock was let go: another write of it goes through
            store.put(b("k"), b("w"));
            assertThat(store.get(b("k"))).isEqualTo(b("w"));
        }
    }

    @Test
    void concurrentIncrementsOfOneKeyLoseNone() throws Exception {
        int threads = 4;
        int each = 2_000;
        try (ElasticStore store = ElasticStore.open(config(FsyncPolicy.NEVER))) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CyclicBarrier start = new CyclicBarrier(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < each; i++) {
                            store.compute(b("counter"), v -> b(String.valueOf(
                                    (v == null ? 0 : Long.parseLong(new String(v, StandardCharsets.UTF_8))) + 1)));
                            if (i % 100 == 0) {
                                store.put(b("other"), b(String.valueOf(i))); // plain writes beside them
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(new String(store.get(b("counter")), StandardCharsets.UTF_8))
                    .isEqualTo(String.valueOf(threads * each));
        }
    }
}
