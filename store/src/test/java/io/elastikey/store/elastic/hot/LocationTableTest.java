// LocationTableTest -- the in-memory copy of the index's locations: hints, takeovers, growth, freeing, racing readers.
package io.elastikey.store.elastic.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.index.Location;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LocationTableTest {

    private final ReaderEpochs epochs = new ReaderEpochs();
    private final Location out = new Location();
    private long allocatedBefore;
    private LocationTable table;

    @BeforeEach
    void open() {
        allocatedBefore = OffHeap.allocatedBytes();
        table = new LocationTable(16, epochs);
    }

    @AfterEach
    void closeFreesEveryByte() {
        table.close();
        assertThat(OffHeap.allocatedBytes()).isEqualTo(allocatedBefore);
    }

    @Test
    void aLocationPutIsFoundAndReplacedInPlaceOrAcrossSegments() {
        long h = 0x1234_5678_9ABC_DEF0L;
        assertThat(table.find(h, out)).isFalse();

        table.put(h, 7, 4096, 4136);
        assertThat(table.find(h, out)).isTrue();
        assertThat(out).usingRecursiveComparison().isEqualTo(new Location().set(7, 4096, 4136));

        table.put(h, 7, 8192, 100); // same segment: only the offset and length change
        assertThat(table.find(h, out)).isTrue();
        assertThat(out).usingRecursiveComparison().isEqualTo(new Location().set(7, 8192, 100));

        table.put(h, 9, 16, 200);
        assertThat(table.find(h, out)).isTrue();
        assertThat(out).usingRecursiveComparison().isEqualTo(new Location().set(9, 16, 200));
        assertThat(table.size()).isEqualTo(1);

        table.remove(h);
        assertThat(table.find(h, out)).isFalse();
        assertThat(table.size()).isZero();
    }

    @Test
    void aSlotKeepsTheSegmentIdsLow24Bits() {
        long h = 42L << 40;
        table.put(h, (3 << LocationTable.SEGMENT_BITS) + 5, Integer.MAX_VALUE, -1);
        assertThat(table.find(h, out)).isTrue();
        assertThat(out.segmentId).isEqualTo(5);
        assertThat(out.offset).as("offsets and lengths keep all 32 bits").isEqualTo(Integer.MAX_VALUE);
        assertThat(out.length).isEqualTo(-1);
    }

    /**
     * Two hashes whose high 40 bits agree cannot be told apart: the later put takes the slot, and the earlier hash is
     * then given the other location, which the store's key check turns away. Removing either empties the slot.
     */
    @Test
    void hashesSharingTheirTagShareASlotAndTheLaterPutWins() {
        long a = 0xABCD_EF01_23L << 24 | 0x000001;
        long b = 0xABCD_EF01_23L << 24 | 0xFFFFFE;
        table.put(a, 1, 10, 20);
        table.put(b, 2, 30, 40);
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.find(a, out)).isTrue();
        assertThat(out).usingRecursiveComparison().isEqualTo(new Location().set(2, 30, 40));

        table.remove(a);
        assertThat(table.find(b, out)).isFalse();
    }

    @Test
    void hashesWhoseTagIsZeroAreStoredLikeAnyOther() {
        long zeroTag = 0x00_0000_0000L << 24 | 0x123456;
        table.put(zeroTag, 3, 4, 5);
        assertThat(table.find(zeroTag, out)).isTrue();
        assertThat(out).usingRecursiveComparison().isEqualTo(new Location().set(3, 4, 5));
        table.remove(zeroTag);
        assertThat(table.find(zeroTag, out)).isFalse();
    }

    /** A random mix of puts, moves and removes, checked against a map, across several rebuilds. */
    @Test
    void agreesWithAMapThroughGrowthAndTombstones() {
        SplittableRandom random = new SplittableRandom(7);
        Map<Long, int[]> model = new HashMap<>();
        List<Long> hashes = new ArrayList<>();
        long smallest = table.bytes();
        for (int i = 0; i < 200_000; i++) {
            int op = random.nextInt(10);
            if (op < 6 || hashes.isEmpty()) {
                long h = random.nextLong();
                int[] loc = {random.nextInt(1 << 20), random.nextInt(), random.nextInt(1, 1 << 20)};
                table.put(h, loc[0], loc[1], loc[2]);
                if (model.put(h, loc) == null) {
                    hashes.add(h);
                }
            } else if (op < 8) {
                long h = hashes.get(random.nextInt(hashes.size()));
                int[] loc = {random.nextInt(1 << 20), random.nextInt(), random.nextInt(1, 1 << 20)};
                table.put(h, loc[0], loc[1], loc[2]);
                model.put(h, loc);
            } else {
                int at = random.nextInt(hashes.size());
                long h = hashes.get(at);
                hashes.set(at, hashes.get(hashes.size() - 1));
                hashes.remove(hashes.size() - 1);
                table.remove(h);
                model.remove(h);
            }
        }
        assertThat(table.size()).isEqualTo(model.size());
        assertThat(table.bytes()).isGreaterThan(smallest);
        for (Map.Entry<Long, int[]> e : model.entrySet()) {
            assertThat(table.find(e.getKey(), out)).as("hash %x", e.getKey()).isTrue();
            int[] want = e.getValue();
            assertThat(new int[] {out.segmentId, out.offset, out.length}).isEqualTo(want);
        }
        for (int i = 0; i < 10_000; i++) {
            long absent = random.nextLong();
            if (!model.containsKey(absent)) {
                assertThat(table.find(absent, out)).isFalse();
            }
        }
    }

    @Test
    void capacityHoldsTheEntriesAtHalfLoadOrLess() {
        assertThat(LocationTable.capacityFor(0)).isEqualTo(1024);
        assertThat(LocationTable.capacityFor(1_000_000)).isEqualTo(1 << 21);
        assertThat(LocationTable.capacityFor(1 << 20)).isEqualTo(1 << 21);
        assertThat(LocationTable.capacityFor((1 << 20) + 1)).isEqualTo(1 << 22);
    }

    /**
     * Readers race a writer that moves keys on, as the store does (every move to a newer segment, since the log only
     * grows; some keys removed and put again; the array regrown now and then): a reader gets a location that key had,
     * never the head of one move and the place of another. (A slot that goes back to a head it had, which the store
     * never makes, could mix two places: {@link LocationTable} says why its callers check every hint anyway.)
     */
    @Test
    void readersNeverSeeHalfOfOneLocationAndHalfOfAnother() throws Exception {
        int keys = 8; // few, so the reader is often on the very slot being rewritten
        long[] hashes = new SplittableRandom(3).longs(keys).toArray();
        for (int k = 0; k < keys; k++) {
            table.put(hashes[k], 1, offsetIn(1, k), lengthIn(1, k));
        }
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        LongAdder found = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        Thread reader = new Thread(() -> {
            Location loc = new Location();
            for (int i = 0; !stop.get(); i++) {
                int k = i & (keys - 1);
                var s = epochs.enter();
                try {
                    if (table.find(hashes[k], loc)) {
                        found.increment();
                        if (loc.offset != offsetIn(loc.segmentId, k) || loc.length != lengthIn(loc.segmentId, k)) {
                            problems.add("key " + k + ": " + loc);
                        }
                    }
                } finally {
                    epochs.exit(s);
                }
            }
        });
        reader.start();
        SplittableRandom w = new SplittableRandom(5);
        long filler = 0;
        for (int segment = 2; segment < 2_000_000 && problems.isEmpty(); segment++) {
            for (int k = 0; k < keys; k++) {
                if (w.nextInt(64) == 0) {
                    table.remove(hashes[k]);
                }
                table.put(hashes[k], segment, offsetIn(segment, k), lengthIn(segment, k));
            }
            if (segment % 64 == 0) {
                table.put(++filler * 0x9E37_79B9_7F4A_7C15L, 1, 1, 1); // grows the array now and then
            }
        }
        stop.set(true);
        reader.join(10_000);
        assertThat(problems).isEmpty();
        assertThat(found.sum()).isGreaterThan(1000);
    }

    /** Where key {@code k}'s record is in {@code segment}, in the race above: each segment its own place. */
    private static int offsetIn(int segment, int k) {
        return segment * 16 + k;
    }

    private static int lengthIn(int segment, int k) {
        return (segment * 7 + k) & 0xFFFF;
    }
}
