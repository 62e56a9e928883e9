// StoreResizeBenchmark -- how long ElasticStore takes to scale its memory budget up and back down.
//
// Run (from the reactor root, after ./mvnw -B -q -pl perf -am package -DskipTests):
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StoreResizeBenchmark
// Smoke run on a small dataset:
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks StoreResizeBenchmark \
//       -f 1 -wi 1 -i 2 --param keys=20000
package io.elastikey.perf.store;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResidencyPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Measures the wall time of one {@link ElasticStore#resize(long)}, from the call until its
 * {@link ResizeOperation} completes, over the {@link BenchmarkDataset} ({@code keys} entries,
 * default a million x 4 KB), one resize per iteration (single shot). Two benchmarks, one per step:
 * <ul>
 *   <li>{@code scaleUp}: from {@code smallPercent}% (default 10) to {@code largePercent}% (default
 *       100) of the values in memory: builds the large table, carries over the small one's entries
 *       and reads the rest from disk (the page cache once warm);
 *   <li>{@code scaleDown}: from {@code largePercent}% back to {@code smallPercent}%: builds the small
 *       table from the large one's most valuable entries and frees the large one.
 * </ul>
 * Before each iteration, outside the measured time, the store is resized to the step's starting
 * budget. The store is idle during the resize. Each iteration prints the operation (entries and
 * bytes moved, the store's own elapsed time) after it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
public class StoreResizeBenchmark {

    @Param("1000000")
    int keys;

    @Param("10")
    int smallPercent;

    @Param("100")
    int largePercent;

    @Param("FREQUENCY")
    ResidencyPolicy residency;

    BenchmarkDataset data;
    ElasticStore store;
    long targetBudget;
    ResizeOperation last;

    @Setup(Level.Trial)
    public void open() throws IOException {
        data = BenchmarkDataset.of(keys).ensureBuilt(System.out);
        store = ElasticStore.open(data.config().residencyPolicy(residency).recordLatency(false).build());
        data.check(store);
    }

    /** Puts the store at the step's starting budget and picks its target. */
    @Setup(Level.Iteration)
    public void prepare(BenchmarkParams params) {
        boolean up = params.getBenchmark().endsWith(".scaleUp");
        long from = data.budgetForPercent(up ? smallPercent : largePercent);
        targetBudget = data.budgetForPercent(up ? largePercent : smallPercent);
        BenchmarkDataset.resize(store, from, System.out);
        System.out.printf("(from %s) ", BenchmarkDataset.describeMemory(store.stats()));
    }

    @TearDown(Level.Iteration)
    public void report() {
        System.out.printf("%n  %s; now %s%n", last, BenchmarkDataset.describeMemory(store.stats()));
    }

    @TearDown(Level.Trial)
    public void close() {
        store.close();
    }

    @Benchmark
    public ResizeOperation scaleUp() {
        return last = BenchmarkDataset.resize(store, targetBudget, null);
    }

    @Benchmark
    public ResizeOperation scaleDown() {
        return last = BenchmarkDataset.resize(store, targetBudget, null);
    }
}
