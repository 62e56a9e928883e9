// StoreGetBenchmark -- ElasticStore lookup throughput of 4 KB values as the memory budget shrinks.
//
// Run (from the reactor root, after ./mvnw -B -q -pl perf -am package -DskipTests):
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StoreGetBenchmark
// Smoke run on a small dataset:
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StoreGetBenchmark \
//       -f 1 -wi 1 -w 1s -i 2 -r 2s --param keys=20000
package io.elastikey.perf.store;

import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResidencyPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Measures {@link ElasticStore#get(byte[], ByteBuffer)} throughput, in lookups per second, of
 * 4 KB values under uniformly random keys of the {@link BenchmarkDataset} ({@code keys} entries),
 * with the memory tier sized to hold {@code inMemoryPercent}% of them, from one and from two
 * threads. Each thread copies into its own reusable direct buffer and draws keys with its own
 * xorshift generator from a precomputed key array, so the loop itself allocates nothing.
 *
 * <p>What a lookup costs here: a hit is a read of the memory tier's own off-heap table; a miss adds
 * a probe of the location table (the index's locations in memory; the Chronicle index itself only
 * when that misses) and a positional read of the record, which comes from the OS page cache when the
 * machine has room for the dataset's files (4 GB for a million keys), as on a warm server: each
 * trial reads them once first ({@link BenchmarkDataset#warmPageCache}). Under
 * the default {@link ResidencyPolicy#FREQUENCY} a miss is also offered to the memory tier
 * (TinyLFU, copied from the read buffer into the tier when it might take it); pass {@code --param
 * residency=SEQUENTIAL} to compare without. Whatever {@code --prof gc} reports is the store's
 * allocation, not this loop's. Uniform keys give the tier no hot set, so the hit ratio is about
 * the budget's share; each trial prints it at the end. Latency is not recorded
 * ({@code recordLatency(false)}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 10)
public class StoreGetBenchmark {

    @Param("1000000")
    int keys;

    @Param({"100", "50", "10", "0"})
    int inMemoryPercent;

    @Param("FREQUENCY")
    ResidencyPolicy residency;

    ElasticStore store;
    byte[][] keyArray;
    private StoreStats before;

    @Setup(Level.Trial)
    public void open() throws IOException {
        BenchmarkDataset data = BenchmarkDataset.of(keys).ensureBuilt(System.out);
        data.warmPageCache(System.out); // misses read the page cache in every run, whatever ran before
        store = ElasticStore.open(data.config().residencyPolicy(residency).recordLatency(false).build());
        data.check(store);
        ResizeOperation op = BenchmarkDataset.resize(store, data.budgetForPercent(inMemoryPercent), System.out);
        System.out.printf("%s%% budget: %s in %.1f s%n", inMemoryPercent,
                BenchmarkDataset.describeMemory(store.stats()), op.elapsedNanos() / 1e9);
        keyArray = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            keyArray[i] = BenchmarkDataset.key(i);
        }
        before = store.stats();
    }

    @TearDown(Level.Trial)
    public void close() {
        StoreStats after = store.stats();
        long hits = after.hits() - before.hits();
        long misses = after.misses() - before.misses();
        System.out.printf("%nhit ratio %.3f over %,d lookups; %s%n", hits + misses == 0 ? 0.0
                : (double) hits / (hits + misses), hits + misses, BenchmarkDataset.describeMemory(after));
        store.close();
    }

    /** One thread's reusable value buffer and key generator. */
    @State(Scope.Thread)
    public static class Reader {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(BenchmarkDataset.VALUE_SIZE);
        long seed = ThreadLocalRandom.current().nextLong() | 1;

        /** A uniform index in [0, n): xorshift64, scaled by multiply-shift. */
        int next(int n) {
            long x = seed;
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            seed = x;
            return (int) (((x >>> 32) * n) >>> 32);
        }
    }

    @Benchmark
    @Threads(1)
    public int getOneThread(Reader r) {
        return get(r);
    }

    @Benchmark
    @Threads(2)
    public int getTwoThreads(Reader r) {
        return get(r);
    }

    private int get(Reader r) {
        r.buffer.clear();
        return store.get(keyArray[r.next(keys)], r.buffer);
    }
}
