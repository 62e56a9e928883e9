// FrequencyResidencyTest -- under a skewed load, FREQUENCY keeps the hot keys in memory and SEQUENTIAL does not.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.hot.HotTier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 2,000 entries of 1,000 bytes; every tenth key is hot and gets 90% of 20,000 reads. The memory
 * budget then holds about 10% of the entries: exactly the hot set, if the policy picks it.
 * A hot-key hit ratio is the difference of {@link StoreStats} hits and misses across one pass
 * that reads each hot key once.
 */
class FrequencyResidencyTest {

    private static final int KEYS = 2000;
    private static final int HOT_EVERY = 10;
    private static final int VALUE_SIZE = 1000;
    private static final int SKEWED_READS = 20_000;
    private static final long TENTH = (KEYS / HOT_EVERY) * HotTier.cost(key(0).length, VALUE_SIZE);

    @TempDir
    Path dir;

    @Test
    void frequencyKeepsTheHotKeysWhenScaledDownAfterASkewedLoad() throws Exception {
        try (ElasticStore store = open(ResidencyPolicy.FREQUENCY, "frequency")) {
            readSkewed(store, new Random(1));
            assertThat(hotHitRatio(store)).as("hot-key hit ratio with no memory tier").isZero();

            scaleTo(store, TENTH);

            assertThat(hotHitRatio(store)).as("hot-key hit ratio after the scale-down").isGreaterThan(0.8);
        }
    }

    @Test
    void aScaleDownFromATierHoldingEverythingKeepsTheHotKeys() throws Exception {
        try (ElasticStore store = open(ResidencyPolicy.FREQUENCY, "carry-over")) {
            scaleTo(store, 4 * KEYS * HotTier.cost(key(0).length, VALUE_SIZE));
            readSkewed(store, new Random(4));

            ResizeOperation op = store.resize(TENTH); // fills the small tier from the big one alone
            assertThat(op.await(60, TimeUnit.SECONDS)).as("%s", op).isEqualTo(ResizeOperation.State.DONE);

            assertThat(op.entriesMoved()).isBetween(KEYS / HOT_EVERY - 2L, (long) KEYS / HOT_EVERY);
            assertThat(hotHitRatio(store)).as("hot-key hit ratio after the scale-down").isGreaterThan(0.8);
        }
    }

    @Test
    void aGrowThatHoldsEverythingLoadsEveryEntryWhileLookupsKeepChangingFrequencies() throws Exception {
        try (ElasticStore store = open(ResidencyPolicy.FREQUENCY, "moving-frequencies")) {
            readSkewed(store, new Random(5));
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread reader = new Thread(() -> { // every key's count rises while the fill walks the index
                Random rnd = new Random(6);
                while (!stop.get()) {
                    store.get(key(rnd.nextInt(KEYS)));
                }
            });
            reader.start();
            try {
                scaleTo(store, 4 * KEYS * HotTier.cost(key(0).length, VALUE_SIZE));
            } finally {
                stop.set(true);
                reader.join();
            }
            assertThat(store.stats().memoryEntries()).isEqualTo(KEYS);
        }
    }

    @Test
    void sequentialGetsAClearlyLowerHotHitRatioThanFrequency() throws Exception {
        double[] ratio = new double[2];
        for (ResidencyPolicy policy : ResidencyPolicy.values()) {
            try (ElasticStore store = open(policy, policy.name())) {
                readSkewed(store, new Random(1));
                scaleTo(store, TENTH);
                ratio[policy.ordinal()] = hotHitRatio(store);
            }
        }
        double sequential = ratio[ResidencyPolicy.SEQUENTIAL.ordinal()];
        double frequency = ratio[ResidencyPolicy.FREQUENCY.ordinal()];
        System.out.printf("hot-key hit ratio after the scale-down: SEQUENTIAL %.3f, FREQUENCY %.3f%n", sequential,
                frequency);
        assertThat(sequential).as("SEQUENTIAL hot-key hit ratio").isLessThan(0.5).isLessThan(frequency - 0.3);
    }

    @Test
    void frequencyAdmitsHotKeysThatMissOverColdResidents() throws Exception {
        try (ElasticStore store = open(ResidencyPolicy.FREQUENCY, "admission")) {
            scaleTo(store, TENTH); // nothing was read yet: the tier fills with whatever comes first
            double before = hotHitRatio(store);
            assertThat(before).as("hot-key hit ratio before any skewed load").isLessThan(0.5);
            readSkewed(store, new Random(2));
            double after = hotHitRatio(store);
            System.out.printf("hot-key hit ratio before and after a skewed load: %.3f, %.3f%n", before, after);
            assertThat(after).as("hot-key hit ratio after the skewed load").isGreaterThan(0.8);
        }
    }

    @ParameterizedTest
    @EnumSource(ResidencyPolicy.class)
    void aFillStopsWalkingTheIndexOnceTheTierIsFull(ResidencyPolicy policy) throws Exception {
        try (ElasticStore store = open(policy, "stop-" + policy)) {
            ResizeOperation op = store.resize(TENTH);
            assertThat(op.await(60, TimeUnit.SECONDS)).as("%s", op).isEqualTo(ResizeOperation.State.DONE);

            assertThat(op.entriesMoved()).isBetween(KEYS / HOT_EVERY - 2L, (long) KEYS / HOT_EVERY);
            // A tenth fits, then a few hundred entries in a row find no room: the rest is never looked at.
            assertThat(op.entriesScanned()).isLessThan(KEYS / 2);
        }
    }

    @ParameterizedTest
    @EnumSource(ResidencyPolicy.class)
    void aBudgetThatHoldsEverythingLoadsEveryEntryHoweverOftenItWasRead(ResidencyPolicy policy) throws Exception {
        try (ElasticStore store = open(policy, "all-" + policy)) {
            readSkewed(store, new Random(3));
            scaleTo(store, 4 * KEYS * HotTier.cost(key(0).length, VALUE_SIZE));
            assertThat(store.stats().memoryEntries()).isEqualTo(KEYS);
            assertThat(hotHitRatio(store)).isEqualTo(1.0);
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    private ElasticStore open(ResidencyPolicy policy, String subdirectory) {
        ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir.resolve(subdirectory))
                .residencyPolicy(policy).memoryBudgetBytes(0).fsyncPolicy(FsyncPolicy.NEVER).indexCapacity(10_000)
                .averageKeySize(key(0).length).averageValueSize(VALUE_SIZE).compactionIntervalMillis(0)
                .checkpointIntervalMillis(0).build());
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i));
        }
        return store;
    }

    /** 90% of reads on the hot tenth of the keys, 10% on the others. */
    private static void readSkewed(ElasticStore store, Random rnd) {
        for (int n = 0; n < SKEWED_READS; n++) {
            int i = rnd.nextInt(10) < 9
                    ? rnd.nextInt(KEYS / HOT_EVERY) * HOT_EVERY
                    : rnd.nextInt(KEYS / HOT_EVERY) * HOT_EVERY + 1 + rnd.nextInt(HOT_EVERY - 1);
            assertThat(store.get(key(i))).hasSize(VALUE_SIZE);
        }
    }

    /**
     * Reads every hot key once; returns the share of those reads served from memory. Once only:
     * under FREQUENCY a miss may be admitted, and a second pass would measure that instead.
     */
    private static double hotHitRatio(ElasticStore store) {
        StoreStats before = store.stats();
        for (int i = 0; i < KEYS; i += HOT_EVERY) {
            assertThat(store.get(key(i))).hasSize(VALUE_SIZE);
        }
        StoreStats after = store.stats();
        long hits = after.hits() - before.hits();
        long misses = after.misses() - before.misses();
        assertThat(hits + misses).isEqualTo(KEYS / HOT_EVERY);
        return (double) hits / (hits + misses);
    }

    private static void scaleTo(ElasticStore store, long budget) throws Exception {
        ResizeOperation op = store.resize(budget);
        assertThat(op.await(60, TimeUnit.SECONDS)).as("%s", op).isEqualTo(ResizeOperation.State.DONE);
    }

    private static byte[] key(int i) {
        return String.format("key-%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_SIZE];
        new Random(i).nextBytes(v);
        return v;
    }
}
