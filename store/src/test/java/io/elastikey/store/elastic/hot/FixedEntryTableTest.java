// FixedEntryTableTest -- the fixed-width table: lookups, replacement, removal, growth that drops what its owner lets go.
package io.elastikey.store.elastic.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class FixedEntryTableTest {

    private static byte[] key(int i) {
        return ByteBuffer.allocate(20).putInt(16, i).array();
    }

    private static byte[] value(int i) {
        return ByteBuffer.allocate(32).putInt(0, i).putInt(28, ~i).array();
    }

    @Test
    void findsWhatWasPutAndNothingElse() {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, null)) {
            table.put(key(1), value(1));
            table.put(key(2), value(2));
            assertThat(table.get(key(1))).isEqualTo(value(1));
            assertThat(table.get(key(2))).isEqualTo(value(2));
            assertThat(table.get(key(3))).isNull();
            assertThat(table.entries()).isEqualTo(2);
        }
    }

    @Test
    void aSecondPutReplacesTheValueAndARemovalForgetsIt() {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, null)) {
            table.put(key(1), value(1));
            table.put(key(1), value(9));
            assertThat(table.get(key(1))).isEqualTo(value(9));
            assertThat(table.entries()).isEqualTo(1);
            assertThat(table.remove(key(1))).isTrue();
            assertThat(table.remove(key(1))).isFalse();
            assertThat(table.get(key(1))).isNull();
            assertThat(table.entries()).isZero();
            table.put(key(1), value(5));
            assertThat(table.get(key(1))).isEqualTo(value(5));
        }
    }

    @Test
    void growsPastItsFirstSizeKeepingEveryEntry() {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, null)) {
            long first = table.reservedBytes();
            for (int i = 0; i < 100_000; i++) {
                table.put(key(i), value(i));
            }
            for (int i = 0; i < 100_000; i++) {
                assertThat(table.get(key(i))).as("entry %d", i).isEqualTo(value(i));
            }
            assertThat(table.entries()).isEqualTo(100_000);
            assertThat(table.reservedBytes()).isGreaterThan(first)
                    .as("at most half empty after a growth, 56-byte slots").isLessThanOrEqualTo(100_000L * 2 * 56 * 2);
        }
    }

    @Test
    void aGrowthDropsTheEntriesItsOwnerNoLongerWants() {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, (k, v) -> ByteBuffer.wrap(k).getInt(16) % 2 == 0)) {
            int count = 20_000;
            for (int i = 0; i < count; i++) {
                table.put(key(i), value(i));
            }
            // every segment grew several times after the first hundred keys went in: their odd ones are gone
            for (int i = 1; i < 100; i += 2) {
                assertThat(table.get(key(i))).as("odd key %d", i).isNull();
            }
            for (int i = 0; i < count; i += 2) {
                assertThat(table.get(key(i))).as("even key %d", i).isEqualTo(value(i));
            }
            assertThat(table.get(key(count - 1))).as("put after the last growth").isEqualTo(value(count - 1));
            assertThat(table.entries()).isLessThan(count).isGreaterThanOrEqualTo(count / 2);
        }
    }

    @Test
    void entriesCopiedInAnotherTablesOrderStaySpreadOut() {
        int count = 200_000;
        try (FixedEntryTable first = new FixedEntryTable(20, 32, null);
             FixedEntryTable second = new FixedEntryTable(20, 32, null)) {
            for (int i = 0; i < count; i++) {
                first.put(key(i), value(i));
            }
            // A snapshot's order: the first table's slots, one by one, put into a table that grows as they arrive.
            // Linear probing at most three quarters full keeps the longest run to a few dozen slots, all along the
            // way: the placement of a complete set is the same in any order, so the way is what a test must watch.
            long[] put = {0};
            long[] longest = {0};
            first.forEach((key, value) -> {
                second.put(key, value);
                if (++put[0] % 10_000 == 0) {
                    longest[0] = Math.max(longest[0], second.longestProbe());
                }
            });

            assertThat(second.entries()).isEqualTo(count);
            assertThat(second.get(key(count - 1))).isEqualTo(value(count - 1));
            assertThat(longest[0]).isLessThan(200);
            assertThat(first.longestProbe()).isLessThan(200);
        }
    }

    @Test
    void forEachVisitsEveryEntryOnce() {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, null)) {
            for (int i = 0; i < 500; i++) {
                table.put(key(i), value(i));
            }
            table.remove(key(7));
            Map<Integer, byte[]> seen = new HashMap<>();
            table.forEach((k, v) -> assertThat(seen.put(ByteBuffer.wrap(k).getInt(16), v)).isNull());
            assertThat(seen).hasSize(499).doesNotContainKey(7);
            assertThat(seen.get(42)).isEqualTo(value(42));
        }
    }

    @Test
    void clearAndCloseGiveTheMemoryBack() {
        long before = OffHeap.allocatedBytes();
        FixedEntryTable table = new FixedEntryTable(20, 32, null);
        for (int i = 0; i < 10_000; i++) {
            table.put(key(i), value(i));
        }
        table.clear();
        assertThat(table.get(key(1))).isNull();
        assertThat(table.entries()).isZero();
        table.put(key(1), value(1));
        table.close();
        assertThat(table.get(key(1))).isNull();
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
        assertThatThrownBy(() -> table.put(key(2), value(2))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void refusesKeysAndValuesOfAnotherWidth() {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, null)) {
            assertThatThrownBy(() -> table.put(new byte[19], value(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("20 bytes, not 19");
            assertThatThrownBy(() -> table.put(key(1), new byte[31]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("32 bytes, not 31");
            assertThatThrownBy(() -> table.get(new byte[32])).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readersNeverSeeAnotherKeysValueWhileTheTableGrows() throws Exception {
        try (FixedEntryTable table = new FixedEntryTable(20, 32, null)) {
            int entries = 200_000;
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<String> wrong = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                int i = 0;
                while (!done.get()) {
                    byte[] found = table.get(key(i));
                    if (found != null && !java.util.Arrays.equals(found, value(i))) {
                        wrong.set("key " + i);
                    }
                    i = (i + 7919) % entries;
                }
            });
            reader.start();
            for (int i = 0; i < entries; i++) {
                table.put(key(i), value(i));
            }
            done.set(true);
            reader.join();
            assertThat(wrong.get()).isNull();
            assertThat(table.entries()).isEqualTo(entries);
        }
    }
}
