// StorePutBenchmark -- ElasticStore write throughput of 4 KB values under each fsync policy.
//
// Run (from the reactor root, after ./mvnw -B -q -pl perf -am package -DskipTests):
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StorePutBenchmark
// Smoke run:
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StorePutBenchmark \
//       -f 1 -wi 1 -w 1s -i 2 -r 2s --param keys=20000
package io.elastikey.perf.store;

import io.elastikey.protocol.config.FileTrees;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
 * Measures {@link ElasticStore#put} throughput, in puts per second, of 4 KB values under each
 * {@link FsyncPolicy}, from one, two and sixteen threads, into a fresh store in a temporary directory
 * per trial (deleted after). A put returns once as durable as the policy promises, so ALWAYS and
 * GROUP (group commit) measure the disk's fsync rate and how well writers share it, NEVER the
 * append path and the page cache.
 *
 * <p>Keys are uniformly random over {@code keys} (default 100,000, 400 MB live), so after the first
 * pass puts overwrite and the log fills with garbage that the store's background compaction
 * reclaims while the benchmark runs, as it would under a sustained write load. To bound disk use
 * (NEVER can write GBs per iteration) every iteration ends with a compaction outside the measured
 * time. The memory tier is off (budget 0): this is the write path alone.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class StorePutBenchmark {

    @Param({"NEVER", "GROUP", "ALWAYS"})
    FsyncPolicy fsync;

    @Param("100000")
    int keys;

    Path directory;
    ElasticStore store;
    final byte[] value = new byte[BenchmarkDataset.VALUE_SIZE];

    @Setup(Level.Trial)
    public void open() throws IOException {
        Files.createDirectories(BenchmarkDataset.root());
        directory = Files.createTempDirectory(BenchmarkDataset.root(), "put-");
        new SplittableRandom(42).nextBytes(value);
        ElasticStoreConfig config = ElasticStoreConfig.builder(directory)
                .memoryBudgetBytes(0)
                .fsyncPolicy(fsync)
                .indexCapacity(Math.max(1024, keys))
                .averageKeySize(BenchmarkDataset.KEY_LENGTH)
                .averageValueSize(BenchmarkDataset.VALUE_SIZE)
                .build();
        store = ElasticStore.open(config);
    }

    @TearDown(Level.Iteration)
    public void compact() {
        store.compactNow();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        System.out.printf("%n%,d keys, %,d MB on disk before deleting %s%n", store.size(),
                store.stats().diskBytes() >> 20, directory);
        store.close();
        FileTrees.delete(directory);
    }

    /** One thread's key buffer and generator; the store copies keys, so one array serves every put. */
    @State(Scope.Thread)
    public static class Writer {
        final byte[] key = new byte[BenchmarkDataset.KEY_LENGTH];
        final SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());

        byte[] nextKey(int keys) {
            BenchmarkDataset.writeKey(random.nextInt(keys), key);
            return key;
        }
    }

    @Benchmark
    @Threads(1)
    public void putOneThread(Writer w) {
        store.put(w.nextKey(keys), value);
    }

    @Benchmark
    @Threads(2)
    public void putTwoThreads(Writer w) {
        store.put(w.nextKey(keys), value);
    }

    /** Many writers, as many connections of a RESP server: with group commit they share each fsync. */
    @Benchmark
    @Threads(16)
    public void putSixteenThreads(Writer w) {
        store.put(w.nextKey(keys), value);
    }
}
