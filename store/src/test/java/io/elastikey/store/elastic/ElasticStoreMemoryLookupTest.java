// ElasticStoreMemoryLookupTest -- getIfInMemory: answers from the memory tier only, counts like get.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.StoreStats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ElasticStoreMemoryLookupTest {

    @TempDir
    Path dir;

    private ElasticStoreConfig.Builder config() {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(1 << 20).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(256 << 10);
    }

    /** Opens the store and waits for the resize that fills its memory tier at open. */
    private ElasticStore open(ElasticStoreConfig config) throws Exception {
        ElasticStore store = ElasticStore.open(config);
        if (store.lastResize() != null) {
            assertThat(store.lastResize().await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
        }
        return store;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] valueOf(int i) {
        byte[] v = new byte[1000];
        Arrays.fill(v, (byte) i);
        v[0] = (byte) (i >> 8);
        return v;
    }

    @Test
    void aHotKeyIsAnsweredFromMemory() throws Exception {
        try (ElasticStore store = open(config().build())) {
            store.put(b("k"), b("hello"));
            ByteBuffer direct = ByteBuffer.allocateDirect(16);
            assertThat(store.getIfInMemory(b("k"), direct)).isEqualTo(5);
            assertThat(direct.flip()).isEqualTo(ByteBuffer.wrap(b("hello")));
            ByteBuffer small = ByteBuffer.allocate(3);
            assertThat(store.getIfInMemory(b("k"), small)).isEqualTo(5);
            assertThat(small.position()).as("nothing copied when it does not fit").isZero();
        }
    }

    @Test
    void aColdKeyIsNotInMemoryAndThenFoundByGet() throws Exception {
        try (ElasticStore store = open(config().memoryBudgetBytes(0).build())) {
            store.put(b("k"), b("hello"));
            ByteBuffer dst = ByteBuffer.allocate(16);
            assertThat(store.getIfInMemory(b("k"), dst)).isEqualTo(ElasticStore.NOT_IN_MEMORY);
            assertThat(dst.position()).isZero();
            assertThat(store.get(b("k"), dst)).isEqualTo(5);
            assertThat(store.getIfInMemory(b("absent"), dst)).isEqualTo(ElasticStore.NOT_IN_MEMORY);
        }
    }

    @Test
    void statsCountOneLookupPerRequestLikeGet() throws Exception {
        try (ElasticStore store = open(config().build())) {
            store.put(b("hot"), b("v"));
            ByteBuffer dst = ByteBuffer.allocate(16);
            int before = store.frequency(b("hot"));
            for (int i = 0; i < 3; i++) {
                dst.clear();
                assertThat(store.getIfInMemory(b("hot"), dst)).isEqualTo(1);
            }
            StoreStats s = store.stats();
            assertThat(s.hits()).isEqualTo(3);
            assertThat(s.misses()).isZero();
            assertThat(store.frequency(b("hot"))).isEqualTo(before + 3);
            dst.clear();
            store.get(b("hot"), dst);
            assertThat(store.frequency(b("hot"))).as("get counts the same way").isEqualTo(before + 4);
            assertThat(store.stats().hits()).isEqualTo(4);
        }
        try (ElasticStore store = open(config().memoryBudgetBytes(0).build())) {
            store.put(b("cold"), b("v"));
            int before = store.frequency(b("cold"));
            ByteBuffer dst = ByteBuffer.allocate(16);
            assertThat(store.getIfInMemory(b("cold"), dst)).isEqualTo(ElasticStore.NOT_IN_MEMORY);
            assertThat(store.stats().hits() + store.stats().misses()).as("NOT_IN_MEMORY counts nothing").isZero();
            assertThat(store.frequency(b("cold"))).isEqualTo(before);
            store.get(b("cold"), dst); // the fallback counts the request once
            assertThat(store.stats().misses()).isEqualTo(1);
            assertThat(store.stats().hits()).isZero();
            assertThat(store.frequency(b("cold"))).isEqualTo(before + 1);
        }
    }

    @Test
    void answersStayCorrectDuringResizes() throws Exception {
        int n = 1000;
        try (ElasticStore store = open(config().memoryBudgetBytes(0).build())) {
            for (int i = 0; i < n; i++) {
                store.put(b("key-" + i), valueOf(i));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> wrong = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                ByteBuffer dst = ByteBuffer.allocateDirect(2048);
                byte[] got = new byte[1000];
                while (!stop.get()) {
                    for (int i = 0; i < n && wrong.get() == null; i++) {
                        dst.clear();
                        int len = store.getIfInMemory(b("key-" + i), dst);
                        if (len == ElasticStore.NOT_IN_MEMORY) {
                            continue;
                        }
                        dst.flip().get(got);
                        if (len != 1000 || !Arrays.equals(got, valueOf(i))) {
                            wrong.set("key-" + i + ": length " + len);
                        }
                    }
                }
            });
            reader.start();
            for (long budget : new long[] {4 << 20, 200 * (1000 + 64 + 8), 4 << 20}) {
                assertThat(store.resize(budget).await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            }
            stop.set(true);
            reader.join();
            assertThat(wrong.get()).isNull();
            ByteBuffer dst = ByteBuffer.allocate(2048);
            for (int i = 0; i < n; i++) {
                dst.clear();
                assertThat(store.getIfInMemory(b("key-" + i), dst)).as("every key in memory after growing")
                        .isEqualTo(1000);
            }
        }
    }

    /**
     * The fill that follows an open (an empty tier growing to the budget) is slowed to a crawl by lookups (duty 1%),
     * as a busy key server slows it. A value written meanwhile goes into the tier being filled, and the very next
     * lookup is answered from it, by get and by getIfInMemory, long before the fill is published.
     */
    @Test
    void aLookupDuringTheFillAfterOpenIsAnsweredFromTheTierBeingFilled() throws Exception {
        try (ElasticStore store = storeFillingSlowly()) {
            duringTheFill(store, fill -> {
                store.put(b("fresh"), b("written during the fill"));
                long hits = store.stats().hits();
                assertThat(store.get(b("fresh"))).isEqualTo(b("written during the fill"));
                ByteBuffer dst = ByteBuffer.allocate(64);
                assertThat(store.getIfInMemory(b("fresh"), dst)).isEqualTo(23);
                assertThat(fill.state()).as("the fill still running after both lookups")
                        .isEqualTo(ResizeOperation.State.RUNNING);
                assertThat(store.stats().hits() - hits).as("both lookups answered from memory").isEqualTo(2);
            });
        }
    }

    /**
     * The tier a resize fills is the store's own once the old tier's entries are in it: a miss is admitted there as
     * between resizes, so the tier fills with what is asked for even where the idle-priority fill hardly runs.
     */
    @Test
    void aMissDuringTheFillIsAdmittedToTheTierBeingFilled() throws Exception {
        try (ElasticStore store = storeFillingSlowly()) {
            duringTheFill(store, fill -> {
                ByteBuffer dst = ByteBuffer.allocate(2048);
                List<Integer> cold = new ArrayList<>();
                for (int i = 19_999; i >= 0 && cold.size() < 10; i--) {
                    dst.clear();
                    if (store.getIfInMemory(b("key-" + i), dst) == ElasticStore.NOT_IN_MEMORY) {
                        cold.add(i);
                    }
                }
                assertThat(cold).as("keys the fill has not copied yet").hasSize(10);
                for (int i : cold) {
                    // A miss gives its admission up while another thread is in the tier (the fill's copy), and while
                    // the fill has touched no memory for it yet (HotTier.prepare, paced like the rest): ask again.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!inMemory(store, i) && System.nanoTime() < deadline) {
                        assertThat(store.get(b("key-" + i))).isEqualTo(valueOf(i));
                        Thread.sleep(5);
                    }
                }
                assertThat(fill.state()).as("the fill still running").isEqualTo(ResizeOperation.State.RUNNING);
                assertThat(cold).as("admitted on their misses").allMatch(i -> inMemory(store, i));
            });
        }
    }

    private static boolean inMemory(ElasticStore store, int i) {
        return store.getIfInMemory(b("key-" + i), ByteBuffer.allocate(2048)) != ElasticStore.NOT_IN_MEMORY;
    }

    /** 20,000 entries on disk, opened with a 64 MiB tier whose fill yields 99% of its time to lookups. */
    private ElasticStore storeFillingSlowly() throws Exception {
        ElasticStoreConfig.Builder base = config().memoryBudgetBytes(64 << 20).segmentSizeBytes(4 << 20);
        try (ElasticStore store = open(base.memoryBudgetBytes(0).build())) {
            for (int i = 0; i < 20_000; i++) {
                store.put(b("key-" + i), valueOf(i));
            }
        }
        return ElasticStore.open(base.memoryBudgetBytes(64 << 20).resizeDutyCycle(0.01).build());
    }

    private interface FillCheck {
        void during(ResizeOperation fill) throws Exception;
    }

    /**
     * Runs {@code check} once the fill after open has published its tier, with lookups of an absent key running
     * beside it: the fill pauses 0.1 s per ms of its work.
     */
    private static void duringTheFill(ElasticStore store, FillCheck check) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Thread busy = new Thread(() -> {
            while (!stop.get()) {
                store.get(b("absent"));
            }
        });
        busy.start();
        try {
            ResizeOperation fill = store.lastResize();
            while (store.tiers.current().budgetBytes() == 0 && fill.state() == ResizeOperation.State.RUNNING) {
                Thread.sleep(1);
            }
            check.during(fill);
        } finally {
            stop.set(true);
            busy.join();
        }
    }
}
