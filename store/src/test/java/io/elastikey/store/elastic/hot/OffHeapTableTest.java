// OffHeapTableTest -- the memory tier's map on its own: lookups, collisions, tombstones, growth, sizes, freeing.
package io.elastikey.store.elastic.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OffHeapTableTest {

    private final ReaderEpochs epochs = new ReaderEpochs();
    private long allocatedBefore;
    private OffHeapTable table;

    @BeforeEach
    void open() {
        allocatedBefore = OffHeap.allocatedBytes();
        table = new OffHeapTable(16, 4096, epochs);
    }

    @AfterEach
    void closeFreesEveryByte() {
        table.close();
        assertThat(OffHeap.allocatedBytes()).isEqualTo(allocatedBefore);
    }

    @Test
    void aValuePutIsReadBackIntoDirectHeapAndNewArrays() {
        byte[] key = bytes("alpha");
        byte[] value = bytes("the value of alpha");
        table.put(key, KeyHash.hash64(key), value);

        ByteBuffer direct = ByteBuffer.allocateDirect(64);
        direct.position(3);
        assertThat(table.get(key, KeyHash.hash64(key), direct)).isEqualTo(value.length);
        assertThat(direct.position()).isEqualTo(3 + value.length);
        assertThat(slice(direct, 3, value.length)).isEqualTo(value);

        ByteBuffer heap = ByteBuffer.wrap(new byte[100], 10, 50).slice();
        heap.position(5);
        assertThat(table.get(key, KeyHash.hash64(key), heap)).isEqualTo(value.length);
        assertThat(slice(heap, 5, value.length)).isEqualTo(value);

        assertThat(table.get(key, KeyHash.hash64(key))).isEqualTo(value);
        assertThat(table.valueLength(key, KeyHash.hash64(key))).isEqualTo(value.length);
        assertThat(table.size()).isEqualTo(1);
    }

    @Test
    void aBufferTooSmallGetsTheLengthAndIsLeftAlone() {
        byte[] key = bytes("k");
        table.put(key, KeyHash.hash64(key), new byte[100]);
        ByteBuffer small = ByteBuffer.allocateDirect(99);
        assertThat(table.get(key, KeyHash.hash64(key), small)).isEqualTo(100);
        assertThat(small.position()).isZero();
    }

    @Test
    void aReadOnlyBufferIsRefused() {
        byte[] key = bytes("k");
        table.put(key, KeyHash.hash64(key), new byte[4]);
        assertThatThrownBy(() -> table.get(key, KeyHash.hash64(key), ByteBuffer.allocateDirect(8).asReadOnlyBuffer()))
                .isInstanceOf(ReadOnlyBufferException.class);
    }

    @Test
    void anAbsentKeyIsNotFound() {
        byte[] key = bytes("nobody");
        assertThat(table.get(key, KeyHash.hash64(key), ByteBuffer.allocate(8))).isEqualTo(OffHeapTable.NOT_FOUND);
        assertThat(table.get(key, KeyHash.hash64(key))).isNull();
        assertThat(table.valueLength(key, KeyHash.hash64(key))).isEqualTo(-1);
        assertThat(table.remove(key, KeyHash.hash64(key))).isEqualTo(-1);
    }

    @Test
    void keysWithTheSameFullHashAreToldApartByTheirBytes() {
        long hash = 0x1234_5678_9ABC_DEF0L;
        for (int i = 0; i < 40; i++) {
            table.put(bytes("collide-" + i), hash, bytes("value-" + i));
        }
        for (int i = 0; i < 40; i++) {
            assertThat(table.get(bytes("collide-" + i), hash)).isEqualTo(bytes("value-" + i));
        }
        assertThat(table.get(bytes("collide-40"), hash)).isNull();
        assertThat(table.remove(bytes("collide-7"), hash)).isEqualTo(bytes("value-7").length);
        assertThat(table.get(bytes("collide-7"), hash)).isNull();
        assertThat(table.get(bytes("collide-8"), hash)).isEqualTo(bytes("value-8"));
        assertThat(table.size()).isEqualTo(39);
    }

    @Test
    void hashesEqualToTheSlotMarkersStillWork() {
        for (long hash : new long[] {0, 1, 2, 3, -1}) {
            byte[] key = bytes("marker-" + hash);
            table.put(key, hash, bytes("v" + hash));
        }
        for (long hash : new long[] {0, 1, 2, 3, -1}) {
            assertThat(table.get(bytes("marker-" + hash), hash)).isEqualTo(bytes("v" + hash));
        }
    }

    @Test
    void keysLandingOnOneSlotFindEachOtherPastTombstones() {
        // Hashes that differ but share their low bits start probing at the same slot: one cluster.
        long[] hashes = new long[12];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = ((long) (i + 1) << 40) | 5;
            table.put(bytes("c" + i), hashes[i], bytes("v" + i));
        }
        for (int i = 0; i < hashes.length; i += 2) {
            table.remove(bytes("c" + i), hashes[i]);
        }
        for (int i = 1; i < hashes.length; i += 2) {
            assertThat(table.get(bytes("c" + i), hashes[i])).as("key %d behind tombstones", i).isEqualTo(bytes("v" + i));
        }
        for (int i = 0; i < hashes.length; i += 2) {
            assertThat(table.get(bytes("c" + i), hashes[i])).isNull();
        }
        table.put(bytes("c0"), hashes[0], bytes("again"));
        assertThat(table.get(bytes("c0"), hashes[0])).isEqualTo(bytes("again"));
        assertThat(table.size()).isEqualTo(7);
    }

    @Test
    void aReplacedValueIsTheOnlyOneAndTheOldBlockIsReused() {
        byte[] key = bytes("k");
        long hash = KeyHash.hash64(key);
        table.put(key, hash, new byte[1000]);
        long reserved = table.reservedBytes();
        for (int i = 0; i < 1000; i++) {
            byte[] v = new byte[1000];
            v[0] = (byte) i;
            table.put(key, hash, v);
            assertThat(table.get(key, hash)[0]).isEqualTo((byte) i);
        }
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.reservedBytes()).as("two blocks alternate: no growth").isLessThanOrEqualTo(reserved + 2048);
    }

    @Test
    void deletesAndInsertsForeverDoNotFillTheSlotsWithTombstones() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int round = 0; round < 20_000; round++) {
            byte[] key = bytes("key-" + rnd.nextInt(50));
            long hash = KeyHash.hash64(key);
            if (rnd.nextBoolean()) {
                table.put(key, hash, key);
            } else {
                table.remove(key, hash);
            }
        }
        assertThat(table.size()).isLessThanOrEqualTo(50);
        // 50 live keys never need more than 256 slots (4 KiB); retired arrays are freed with no reader about.
        assertThat(table.retiredArrays()).isZero();
        assertThat(table.reservedBytes()).isLessThan(256 * 16 + 50 * 2 * 128 + 64 * 1024);
    }

    @Test
    void theTableGrowsPastItsLayoutAndKeepsEveryEntry() {
        Map<String, byte[]> model = new HashMap<>();
        for (int i = 0; i < 5000; i++) {
            byte[] key = bytes("grow-" + i);
            byte[] value = bytes("value-" + i * 7);
            table.put(key, KeyHash.hash64(key), value);
            model.put("grow-" + i, value);
        }
        assertThat(table.size()).isEqualTo(5000);
        model.forEach((k, v) -> assertThat(table.get(bytes(k), KeyHash.hash64(bytes(k)))).isEqualTo(v));
    }

    @Test
    void anOutgrownSlotArrayWaitsForReadersThatMightStillProbeIt() {
        ReaderEpochs.Slot reader = epochs.enter();
        try {
            for (int i = 0; i < 200; i++) {
                byte[] key = bytes("r-" + i);
                table.put(key, KeyHash.hash64(key), key);
            }
            assertThat(table.retiredArrays()).as("a reader is inside: nothing freed").isPositive();
        } finally {
            epochs.exit(reader);
        }
        assertThat(table.retiredArrays()).isZero();
    }

    @Test
    void valuesOfManySizesRoundTrip() {
        SplittableRandom rnd = new SplittableRandom(7);
        int[] sizes = {0, 1, 7, 8, 9, 40, 63, 64, 65, 1000, 1024, 1025, 4096, 4097, 65_535, 65_536, 200_000, 1 << 20};
        for (int i = 0; i < sizes.length; i++) {
            byte[] key = new byte[1 + rnd.nextInt(300)];
            rnd.nextBytes(key);
            key[0] = (byte) i;
            byte[] value = new byte[sizes[i]];
            rnd.nextBytes(value);
            table.put(key, KeyHash.hash64(key), value);
            assertThat(table.get(key, KeyHash.hash64(key))).as("size %d", sizes[i]).isEqualTo(value);
            ByteBuffer direct = ByteBuffer.allocateDirect(sizes[i]);
            assertThat(table.get(key, KeyHash.hash64(key), direct)).isEqualTo(sizes[i]);
            assertThat(slice(direct, 0, sizes[i])).isEqualTo(value);
        }
        assertThat(table.size()).isEqualTo(sizes.length);
    }

    @Test
    void aClosedTableFindsNothingAndRefusesWrites() {
        byte[] key = bytes("k");
        table.put(key, KeyHash.hash64(key), key);
        table.close();
        assertThat(table.get(key, KeyHash.hash64(key))).isNull();
        assertThatThrownBy(() -> table.put(key, KeyHash.hash64(key), key)).isInstanceOf(IllegalStateException.class);
        table.close(); // twice is fine
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] slice(ByteBuffer b, int at, int n) {
        byte[] out = new byte[n];
        b.duplicate().position(at).get(out);
        return out;
    }
}
