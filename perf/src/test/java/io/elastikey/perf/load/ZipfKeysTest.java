package io.elastikey.perf.load;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ZipfKeysTest {

    @Test
    void rankFrequenciesFollowOneOverRankToTheExponent() {
        int n = 1000;
        double s = 1.2;
        ZipfKeys zipf = new ZipfKeys(n, s);
        SplittableRandom random = new SplittableRandom(1);
        long[] counts = new long[n + 1];
        int draws = 1_000_000;
        for (int i = 0; i < draws; i++) {
            counts[(int) zipf.rank(random)]++;
        }
        double norm = 0;
        for (int k = 1; k <= n; k++) {
            norm += Math.pow(k, -s);
        }
        for (int k : new int[] {1, 2, 10, 100}) {
            double expected = draws * Math.pow(k, -s) / norm;
            assertThat((double) counts[k]).as("rank %d", k).isCloseTo(expected, within(expected * 0.05 + 50));
        }
        assertThat(counts[0]).isZero();
    }

    @Test
    void ranksMapOneToOneOntoTheKeysAndTheTopRanksAreScattered() {
        for (int n : new int[] {1, 2, 10, 400_000, 1_000_003}) {
            ZipfKeys zipf = new ZipfKeys(n, 1.0);
            BitSet seen = new BitSet(n);
            for (long rank = 1; rank <= n; rank++) {
                long key = zipf.keyOfRank(rank);
                assertThat(key).isBetween(0L, n - 1L);
                assertThat(seen.get((int) key)).as("n=%d rank %d", n, rank).isFalse();
                seen.set((int) key);
            }
        }
        ZipfKeys zipf = new ZipfKeys(400_000, 1.2);
        assertThat(Math.abs(zipf.keyOfRank(2) - zipf.keyOfRank(1))).isGreaterThan(100_000);
    }

    @Test
    void atAMillionKeysAndExponentOnePointOneTheTopKeysTakeTheirShareAndEveryDrawIsAKey() {
        int n = 1_000_000;
        double s = 1.1;
        ZipfKeys zipf = new ZipfKeys(n, s);
        SplittableRandom random = new SplittableRandom(11);
        double norm = 0;
        for (int k = 1; k <= n; k++) {
            norm += Math.pow(k, -s);
        }
        long topKey = zipf.keyOfRank(1);
        int draws = 500_000;
        long top = 0;
        for (int i = 0; i < draws; i++) {
            long key = zipf.next(random);
            assertThat(key).isBetween(0L, n - 1L);
            if (key == topKey) {
                top++;
            }
        }
        double expected = draws / norm; // rank 1: 1 / H(n, s) of the draws, about 9%
        assertThat((double) top).isCloseTo(expected, within(expected * 0.05));
        assertThat(topKey).as("rank 1 is not the first key of the list").isNotZero();
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> new ZipfKeys(0, 1)).hasMessageContaining("n must be");
        assertThatThrownBy(() -> new ZipfKeys(10, 0)).hasMessageContaining("exponent");
        assertThatThrownBy(() -> new ZipfKeys(10, Double.NaN)).hasMessageContaining("exponent");
    }
}
