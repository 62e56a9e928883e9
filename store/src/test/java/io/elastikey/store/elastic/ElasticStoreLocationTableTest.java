// ElasticStoreLocationTableTest -- misses read where the location table points, and trust only the record there.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.hot.KeyHash;
import io.elastikey.store.elastic.index.Location;
import io.elastikey.store.elastic.log.Segment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store fills its location table after opening and keeps it beside the index on every write, delete and
 * compaction move; a lookup that misses the memory tier reads the record the table names and falls back to the
 * index when that record is not the key's. These tests check both halves: the table agrees with the index, and a
 * table that is wrong (as a slot shared by two keys' tags is) never changes an answer.
 */
class ElasticStoreLocationTableTest {

    private static final int KEYS = 600; // some ten 64 KiB segments of 1,000-byte values

    @TempDir
    Path dir;

    private ElasticStore open() {
        return ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).indexCapacity(10_000)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10).compactionGarbageRatio(0.5)
                .compactionIntervalMillis(0).checkpointIntervalMillis(0).build());
    }

    @Test
    void theTableFollowsWritesDeletesAndCompactionAndIsRefilledOnOpen() throws Exception {
        try (ElasticStore store = open()) {
            OverwrittenKeys.writeAll(store, KEYS);
            OverwrittenKeys.overwriteMost(store, KEYS);
            assertThat(store.compactor.compactEligible(false)).as("segments compacted").isPositive();
            for (int i = 0; i < KEYS; i += 3) {
                store.delete(OverwrittenKeys.key(i));
            }
            assertTableMatchesIndex(store);
            assertLatestOrDeleted(store);
        }
        try (ElasticStore store = open()) {
            awaitTrue(() -> store.locations.size() == store.size(), "the table filled after opening");
            assertTableMatchesIndex(store);
            assertLatestOrDeleted(store);
            assertThat(store.locationTableBytes()).isPositive();
        }
    }

    @Test
    void aHintNamingAnotherKeysRecordOrNoRecordIsCheckedAndTheIndexAsked() throws Exception {
        try (ElasticStore store = open()) {
            OverwrittenKeys.writeAll(store, KEYS);
            Location other = new Location();
            assertThat(store.index.lookup(OverwrittenKeys.key(1), other)).isTrue();

            byte[] a = OverwrittenKeys.key(0);
            long hash = KeyHash.hash64(a);
            store.locations.put(hash, other.segmentId, other.offset, other.length); // another key's record
            assertThat(store.get(a)).isEqualTo(OverwrittenKeys.value(0, 1));

            store.locations.put(hash, other.segmentId, other.offset + 100, other.length); // inside a record
            ByteBuffer into = ByteBuffer.allocateDirect(2000);
            assertThat(store.get(a, into)).isEqualTo(1000);
            assertThat(into.flip()).isEqualTo(ByteBuffer.wrap(OverwrittenKeys.value(0, 1)));

            store.locations.put(hash, other.segmentId, Integer.MAX_VALUE - 10, 1024); // past the file's end
            assertThat(store.get(a)).isEqualTo(OverwrittenKeys.value(0, 1));

            store.locations.put(hash, other.segmentId + 1000, other.offset, other.length); // no such segment
            assertThat(store.get(a)).isEqualTo(OverwrittenKeys.value(0, 1));

            store.locations.put(hash, other.segmentId, -1, 5); // no record is that short
            assertThat(store.get(a)).isEqualTo(OverwrittenKeys.value(0, 1));

            assertThat(store.get(OverwrittenKeys.key(1))).isEqualTo(OverwrittenKeys.value(1, 1));
        }
    }

    /** The table keeps 24 bits of a segment id; here 4 and 2 bits stand for them, over some ten live segments. */
    @Test
    void aSegmentIsFoundByItsIdsLowBitsOnlyWhileNoOtherLiveSegmentSharesThem() {
        try (ElasticStore store = open()) {
            OverwrittenKeys.writeAll(store, KEYS);
            Segment[] live = store.log.segments();
            int span = live[live.length - 1].id() - live[0].id();
            assertThat(span).as("live segment ids span").isBetween(4, 15);
            for (Segment s : live) {
                assertThat(store.log.segmentEndingIn(s.id() & 15, 4)).isSameAs(s);
                assertThat(store.log.segmentEndingIn(s.id() & 3, 2)).as("ids span more than 2 bits").isNull();
            }
        }
    }

    @Test
    void aKeyTheTableHasNotYetIsReadThroughTheIndex() throws Exception {
        try (ElasticStore store = open()) {
            OverwrittenKeys.writeAll(store, KEYS);
            byte[] a = OverwrittenKeys.key(7);
            store.locations.remove(KeyHash.hash64(a));
            assertThat(store.get(a)).isEqualTo(OverwrittenKeys.value(7, 1));
            assertThat(store.get(OverwrittenKeys.key(KEYS + 1))).isNull();
        }
    }

    @Test
    void aStoreWithoutTheTableReadsThroughTheIndex() throws Exception {
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10).locationTable(false).build())) {
            assertReadsThroughTheIndex(store);
        }
    }

    @Test
    void aStoreReadingPastThePageCacheHasNoTable() throws Exception {
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(64 << 10).directReads(true).build())) {
            assertReadsThroughTheIndex(store);
        }
    }

    private static void assertReadsThroughTheIndex(ElasticStore store) {
        OverwrittenKeys.writeAll(store, KEYS);
        OverwrittenKeys.overwriteMost(store, KEYS);
        store.delete(OverwrittenKeys.key(0));
        assertThat(store.locations).isNull();
        assertThat(store.locationTableBytes()).isZero();
        assertThat(store.get(OverwrittenKeys.key(0))).isNull();
        assertThat(store.get(OverwrittenKeys.key(1))).isEqualTo(OverwrittenKeys.value(1, 2));
        assertThat(store.get(OverwrittenKeys.key(9))).isEqualTo(OverwrittenKeys.value(9, 1));
    }

    private static void assertTableMatchesIndex(ElasticStore store) {
        Location fromTable = new Location();
        int[] checked = {0};
        store.index.forEach((key, loc) -> {
            assertThat(store.locations.find(KeyHash.hash64(key), fromTable)).as("key %s in the table",
                    new String(key)).isTrue();
            assertThat(new int[] {fromTable.segmentId, fromTable.offset, fromTable.length})
                    .isEqualTo(new int[] {loc.segmentId, loc.offset, loc.length});
            checked[0]++;
        });
        assertThat(checked[0]).isEqualTo(store.size());
        assertThat(store.locations.size()).isEqualTo(store.size());
    }

    private static void assertLatestOrDeleted(ElasticStore store) {
        for (int i = 0; i < KEYS; i++) {
            byte[] want = i % 3 == 0 ? null : OverwrittenKeys.value(i, OverwrittenKeys.overwritten(i) ? 2 : 1);
            assertThat(store.get(OverwrittenKeys.key(i))).as("key %d", i).isEqualTo(want);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited 30 s for: " + what).isNegative();
            Thread.sleep(10);
        }
    }
}
