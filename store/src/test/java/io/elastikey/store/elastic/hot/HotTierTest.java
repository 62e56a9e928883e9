// HotTierTest -- the memory tier's budget: what entries cost, what the tier really holds, and that close frees it.
package io.elastikey.store.elastic.hot;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HotTierTest {

    private final ReaderEpochs epochs = new ReaderEpochs();

    @Test
    void anEntryCostsItsSlabBlockAndASlotShare() {
        // 24-byte header + 16-byte key + 4096-byte value = 4136, whose size class is 4224.
        assertThat(HotTier.cost(16, 4096)).isEqualTo(4224 + HotTier.SLOT_SHARE);
        assertThat(HotTier.cost(1, 0)).isEqualTo(HotTier.MIN_ENTRY_COST);
        assertThat(HotTier.cost(8, 32)).isEqualTo(64 + HotTier.SLOT_SHARE);
        assertThat(HotTier.cost(8, 33)).isEqualTo(128 + HotTier.SLOT_SHARE);
    }

    @Test
    void aTierFilledToItsBudgetHoldsLittleMoreNativeMemoryThanTheBudget() {
        long before = OffHeap.allocatedBytes();
        long budget = 8L << 20;
        HotTier tier = HotTier.create(budget, 16, 4096, epochs);
        int admitted = 0;
        for (int i = 0; tier.putIfRoom(key(i), new byte[4096]); i++) {
            admitted++;
        }
        assertThat(admitted).isEqualTo((int) (budget / HotTier.cost(16, 4096)));
        assertThat(tier.usedBytes()).isEqualTo(admitted * HotTier.cost(16, 4096)).isLessThanOrEqualTo(budget);
        assertThat(tier.entries()).isEqualTo(admitted);
        // Slack: the unused end of the last chunk (at most a sixteenth of the budget) and the slot array's
        // rounding up to a power of two.
        assertThat(tier.reservedBytes()).isBetween(admitted * 4224L, budget + budget / 16 + 64 * 1024);
        tier.close();
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    @Test
    void whileAdmissionsMayUseOnlyPreparedMemoryAMissIsAdmittedOnceTheMemoryIsTouched() {
        long before = OffHeap.allocatedBytes();
        HotTier tier = HotTier.create(8L << 20, 16, 4096, epochs);
        tier.admitIntoPreparedMemoryOnly();
        assertThat(tier.tryAdmit(key(1), new byte[4096], k -> 1, 1)).as("no memory touched yet").isFalse();
        assertThat(tier.entries()).isZero();

        int[] steps = {0};
        tier.prepare(1, () -> steps[0]++);
        assertThat(steps[0]).as("paced in steps while touching a chunk").isPositive();
        assertThat(tier.tryAdmit(key(1), new byte[4096], k -> 1, 1)).isTrue();
        assertThat(tier.putIfRoom(key(2), new byte[4096])).as("a write may take fresh memory").isTrue();

        tier.admitAnywhere();
        for (int i = 3; i < 5000 && tier.tryAdmit(key(i), new byte[4096], k -> 1, 1); i++) {
            assertThat(tier.contains(key(i))).isTrue();
        }
        assertThat(tier.usedBytes()).as("filled to the budget").isGreaterThan((8L << 20) - HotTier.cost(16, 4096));
        tier.close();
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    @Test
    void memoryPreparedForATierClosedMeanwhileGoesBack() {
        long before = OffHeap.allocatedBytes();
        HotTier tier = HotTier.create(64L << 20, 16, 4096, epochs);
        tier.prepare(8L << 20, () -> { });
        assertThat(tier.reservedBytes()).as("two chunks of 4 MiB held").isGreaterThanOrEqualTo(8L << 20);
        tier.close();
        tier.prepare(8L << 20, () -> { }); // a cancelled grow's preparer, still running after the close
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    @Test
    void accountingReturnsToZeroAfterEntriesOfManySizesComeAndGo() {
        long before = OffHeap.allocatedBytes();
        HotTier tier = HotTier.create(4L << 20, 16, 1000, epochs);
        SplittableRandom rnd = new SplittableRandom(3);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            byte[] key = key(i);
            byte[] value = new byte[rnd.nextInt(20_000)];
            rnd.nextBytes(value);
            if (tier.putIfRoom(key, value)) {
                keys.add(key);
                ByteBuffer dst = ByteBuffer.allocate(value.length);
                assertThat(tier.get(key, dst)).isEqualTo(value.length);
                assertThat(dst.array()).isEqualTo(value);
            }
            assertThat(tier.usedBytes()).isLessThanOrEqualTo(4L << 20);
        }
        assertThat(keys).isNotEmpty();
        for (byte[] key : keys) {
            tier.remove(key);
        }
        assertThat(tier.usedBytes()).isZero();
        assertThat(tier.entries()).isZero();
        tier.close();
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    @Test
    void aValueThatNoLongerFitsDropsTheOldOne() {
        HotTier tier = HotTier.create(1 << 20, 8, 100, epochs);
        byte[] key = key(1);
        assertThat(tier.putIfRoom(key, new byte[100])).isTrue();
        assertThat(tier.putIfRoom(key, new byte[600_000])).isFalse(); // more than an eighth of the budget
        assertThat(tier.get(key)).isNull();
        assertThat(tier.usedBytes()).isZero();
        tier.close();
    }

    @Test
    void anAdmissionCopiesTheBuffersRemainingBytesWhereverTheyLieAndLeavesItsPositionAlone() {
        HotTier tier = HotTier.create(1 << 20, 8, 1000, epochs);
        byte[] bytes = new byte[1200];
        new SplittableRandom(7).nextBytes(bytes);
        ByteBuffer direct = ByteBuffer.allocateDirect(1200).put(bytes).position(100).limit(1100);
        ByteBuffer slice = ByteBuffer.wrap(bytes, 50, 1100).slice().position(50); // arrayOffset 50: bytes 100..1150

        assertThat(tier.tryAdmit(key(1), KeyHash.hash64(key(1)), direct, k -> 1, 1)).isTrue();
        assertThat(tier.tryAdmit(key(2), KeyHash.hash64(key(2)), slice, k -> 1, 1)).isTrue();

        assertThat(direct.position()).isEqualTo(100);
        assertThat(slice.position()).isEqualTo(50);
        assertThat(tier.get(key(1))).isEqualTo(Arrays.copyOfRange(bytes, 100, 1100));
        assertThat(tier.get(key(2))).isEqualTo(Arrays.copyOfRange(bytes, 100, 1150));
        tier.close();
    }

    @Test
    void frequentNewcomersEvictTheOldestLessFrequentEntries() {
        long cost = HotTier.cost(8, 1000);
        HotTier tier = HotTier.create(10 * cost, 8, 1000, epochs);
        for (int i = 0; i < 10; i++) {
            assertThat(tier.putIfRoom(key(i), new byte[1000])).isTrue();
        }
        assertThat(tier.putIfRoom(key(99), new byte[1000])).isFalse();
        // Key 99 is hot (frequency 5), the others cold (0): it takes the oldest's place.
        assertThat(tier.tryAdmit(key(99), new byte[1000], k -> k[7] == 99 ? 5 : 0, 5)).isTrue();
        assertThat(tier.contains(key(99))).isTrue();
        assertThat(tier.contains(key(0))).isFalse();
        assertThat(tier.entries()).isEqualTo(10);
        // A newcomer no more frequent than the victim plus the margin is refused.
        assertThat(tier.tryAdmit(key(98), new byte[1000], k -> 1, 2)).isFalse();
        tier.close();
    }

    @Test
    void aVictimNoNewcomerCanBeatStepsAsideForTheNext() {
        long cost = HotTier.cost(8, 1000);
        HotTier tier = HotTier.create(4 * cost, 8, 1000, epochs);
        FrequencySketch sketch = new FrequencySketch(1000);
        for (int i = 0; i < 4; i++) {
            assertThat(tier.putIfRoom(key(i), new byte[1000])).isTrue();
        }
        for (int n = 0; n < 20; n++) {
            sketch.increment(KeyHash.hash64(key(0))); // the oldest entry, saturated at 15
        }
        for (int n = 0; n < 3; n++) {
            sketch.increment(KeyHash.hash64(key(99))); // a newcomer at 3: beats 0 + 1, not 15 + 1
        }
        long newcomer = KeyHash.hash64(key(99));
        assertThat(tier.mightAdmit(8, 1000, newcomer, sketch)).as("key 0 at the head wins").isFalse();
        assertThat(tier.mightAdmit(8, 1000, newcomer, sketch)).as("key 0 stepped aside: key 1 is next").isTrue();
        assertThat(tier.tryAdmit(key(99), new byte[1000], k -> sketch.frequency(KeyHash.hash64(k)),
                sketch.frequency(newcomer))).isTrue();
        assertThat(tier.contains(key(0))).as("the hot one kept its place").isTrue();
        assertThat(tier.contains(key(1))).as("the cold one made room").isFalse();
        tier.close();
    }

    @Test
    void anEmptyTierFindsNothingAndTakesNothing() {
        HotTier tier = HotTier.empty();
        assertThat(tier.get(key(1), ByteBuffer.allocate(8))).isEqualTo(-1);
        assertThat(tier.get(key(1))).isNull();
        assertThat(tier.putIfRoom(key(1), new byte[1])).isFalse();
        assertThat(tier.reservedBytes()).isZero();
        tier.close();
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(8).putInt(0xC0FFEE).putInt(i).array();
    }
}
