// FrequencySketchTest -- the count-min sketch behind the FREQUENCY policy: ranking, saturation, aging.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.hot.FrequencySketch;
import io.elastikey.store.elastic.hot.KeyHash;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FrequencySketchTest {

    private static long hash(String key) {
        return KeyHash.hash64(key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anUnseenKeyEstimatesZero() {
        FrequencySketch sketch = new FrequencySketch(1000);
        assertThat(sketch.frequency(hash("never seen"))).isZero();
    }

    @Test
    void frequentKeysEstimateHigherThanRareOnes() {
        FrequencySketch sketch = new FrequencySketch(1000);
        // 100 hot keys read 10 times, 1000 cold keys once, interleaved; well below the aging sample.
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < 100; i++) {
                sketch.increment(hash("hot-" + i));
            }
            for (int i = round * 100; i < round * 100 + 100; i++) {
                sketch.increment(hash("cold-" + i));
            }
        }
        int[] hot = new int[100];
        int[] cold = new int[1000];
        for (int i = 0; i < 100; i++) {
            hot[i] = sketch.frequency(hash("hot-" + i));
        }
        for (int i = 0; i < 1000; i++) {
            cold[i] = sketch.frequency(hash("cold-" + i));
        }
        // Count-min never underestimates (no aging happened), and collisions inflate few keys.
        assertThat(Arrays.stream(hot).min().orElseThrow()).as("lowest hot-key estimate").isGreaterThanOrEqualTo(10);
        assertThat(Arrays.stream(cold).filter(f -> f <= 2).count()).as("cold keys estimated at most 2")
                .isGreaterThan(900);
        assertThat(Arrays.stream(hot).average().orElseThrow())
                .isGreaterThan(Arrays.stream(cold).average().orElseThrow() + 7);
    }

    @Test
    void countersSaturateAtFifteenWithoutSpillingIntoNeighbours() {
        FrequencySketch sketch = new FrequencySketch(1000);
        long hot = hash("hot");
        for (int i = 0; i < 1000; i++) {
            sketch.increment(hot);
            assertThat(sketch.frequency(hot)).isEqualTo(Math.min(15, i + 1));
        }
        SplittableRandom rnd = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            assertThat(sketch.frequency(rnd.nextLong())).as("an unseen key next to a saturated one").isZero();
        }
    }

    @Test
    void agingHalvesEveryCounter() {
        // The smallest sketch: 64 words of 16 counters; it ages after 10 x 256 increments per row.
        FrequencySketch sketch = new FrequencySketch(1);
        long hot = hash("hot");
        for (int i = 0; i < 15; i++) {
            sketch.increment(hot);
        }
        assertThat(sketch.frequency(hot)).isEqualTo(15);

        // Distinct keys, each seen once, until the aging pass: the hot key's four saturated
        // counters cannot grow, so the first time its estimate changes is the halving.
        SplittableRandom rnd = new SplittableRandom(2);
        int increments = 0;
        while (sketch.frequency(hot) == 15 && increments < 100_000) {
            sketch.increment(rnd.nextLong());
            increments++;
        }
        assertThat(increments).as("increments until the sketch aged").isBetween(2000, 3000);
        assertThat(sketch.frequency(hot)).as("15 halved").isEqualTo(7);
        SplittableRandom probe = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            assertThat(sketch.frequency(probe.nextLong())).as("any estimate right after aging").isLessThanOrEqualTo(7);
        }
    }

    @Test
    void knowsWhetherItEverCountedAnything() {
        FrequencySketch sketch = new FrequencySketch(1000);
        assertThat(sketch.hasCounts()).isFalse();
        sketch.frequency(42);
        assertThat(sketch.hasCounts()).isFalse();
        sketch.increment(42);
        assertThat(sketch.hasCounts()).isTrue();
    }
}
