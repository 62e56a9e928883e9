// OpenLoopGet -- ElasticStore lookup latency at a constant request rate, corrected for coordinated omission.
//
// Run from the reactor root after ./mvnw -B -q -pl perf -am package -DskipTests (the KPI run:
// 30,000 gets/s over a million keys with a 10% budget, in a 256 MB heap):
//   java $(sed -n 's/^elastikey\.jvm\.flags=//p' jvm.properties) -Xmx256m \
//       -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.store.OpenLoopGet
// Options: --keys, --memory-percent, --rate, --duration, --warmup, --threads; --help lists them.
// Lookups while the budget changes: perf/bin/resize-timeline (ResizeTimeline).
package io.elastikey.perf.store;

import io.elastikey.perf.load.LoadSteps;
import io.elastikey.perf.load.OpenLoopSchedule;
import io.elastikey.perf.JvmFlags;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.ResidencyPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * An open-loop load generator for {@link ElasticStore#get(byte[], java.nio.ByteBuffer)} over the
 * {@link BenchmarkDataset}. Request {@code i} is due at {@code start + i / rate}, whether or not
 * earlier requests have finished; its latency runs from that intended start to its completion.
 * A stall therefore shows up in every request that should have started during it, instead of
 * only in the one that was stuck (coordinated omission, as in wrk2).
 *
 * <p>{@code --threads} workers take requests from the {@link OpenLoopSchedule} in order, each once it is due,
 * look up a uniformly random key and record into their own HdrHistogram. A worker writes keys into one reused
 * array and values into one reused direct buffer, so the tool's heap stays small (it runs the million-key KPI in
 * {@code -Xmx256m}). The first {@code --warmup} seconds run at the same rate but are not recorded.
 */
@Command(name = "store", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Issues ElasticStore gets at a constant rate and prints the latency distribution, "
                + "measured from each request's intended start.")
public final class OpenLoopGet implements Callable<Integer> {

    @Option(names = "--keys", defaultValue = "1000000", description = "Dataset size; built under "
            + "${java.io.tmpdir}/elastikey-bench if missing (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--memory-percent", defaultValue = "10",
            description = "Memory budget as a share of the values (default: ${DEFAULT-VALUE}).")
    int memoryPercent;

    @Option(names = "--rate", defaultValue = "30000", description = "Gets per second (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--duration", defaultValue = "30",
            description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--warmup", defaultValue = "5",
            description = "Seconds at the same rate before recording starts (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--threads", defaultValue = "2",
            description = "Worker threads issuing the gets (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--policy", defaultValue = "FREQUENCY",
            description = "Residency policy: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ResidencyPolicy policy;

    @Option(names = "--slo-ms", defaultValue = "5",
            description = "Lookups slower than this many ms are counted (default: ${DEFAULT-VALUE}).")
    int sloMillis;


    private final PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new OpenLoopGet()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!JvmFlags.thisJvmHasThem(System.err)) {
            return 2;
        }
        if (rate < 1 || durationSeconds < 1 || warmupSeconds < 0 || threads < 1) {
            System.err.println("need --rate >= 1, --duration >= 1, --warmup >= 0, --threads >= 1");
            return 2;
        }
        BenchmarkDataset data = BenchmarkDataset.of(keys).ensureBuilt(out);
        ElasticStoreConfig config = data.config().residencyPolicy(policy).recordLatency(false).build();
        try (ElasticStore store = ElasticStore.open(config)) {
            data.check(store);
            ResizeOperation op = BenchmarkDataset.resize(store, data.budgetForPercent(memoryPercent), out);
            out.printf("%d%% budget: %s in %.1f s%n", memoryPercent, BenchmarkDataset.describeMemory(store.stats()),
                    op.elapsedNanos() / 1e9);
            run(store);
        }
        return 0;
    }

    private void run(ElasticStore store) throws InterruptedException {
        long warmup = (long) rate * warmupSeconds;
        OpenLoopSchedule schedule = new OpenLoopSchedule(
                new LoadSteps(List.of(new LoadSteps.Step(rate, warmupSeconds + durationSeconds))));
        Worker[] workers = new Worker[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Worker(store, schedule, keys, warmup, t);
            workers[t].start();
        }
        out.printf("%,d gets/s for %d s (after %d s unrecorded) over %,d keys, %d worker(s)...%n",
                rate, durationSeconds, warmupSeconds, keys, threads);
        long untilMeasured = schedule.intendedStart(warmup) - System.nanoTime();
        if (untilMeasured > 0) {
            TimeUnit.NANOSECONDS.sleep(untilMeasured);
        }
        StoreStats before = store.stats();
        for (Worker w : workers) {
            w.join();
        }
        report(schedule.intendedStart(warmup), workers, before, store.stats());
    }

    private void report(long measuredStart, Worker[] workers, StoreStats before, StoreStats after) {
        Histogram h = new Histogram(Worker.HIGHEST_NANOS, 3);
        long lastDone = measuredStart;
        long errors = 0;
        for (Worker w : workers) {
            h.add(w.histogram);
            lastDone = Math.max(lastDone, w.lastDoneNanos);
            errors += w.errors;
        }
        double seconds = (lastDone - measuredStart) / 1e9;
        long overSlo = h.getTotalCount() - h.getCountBetweenValues(0, TimeUnit.MILLISECONDS.toNanos(sloMillis));
        long hits = after.hits() - before.hits();
        long misses = after.misses() - before.misses();
        out.printf("%ncount       %,d (%,d errors: key absent or wrong size)%n", h.getTotalCount(), errors);
        out.printf("rate        %,.0f gets/s achieved, %,d intended%n", h.getTotalCount() / seconds, rate);
        out.printf("hit ratio   %.3f%n", hits + misses == 0 ? 0.0 : (double) hits / (hits + misses));
        out.printf("latency us  p50 %,.1f  p90 %,.1f  p99 %,.1f  p99.9 %,.1f  max %,.1f  (from intended start)%n",
                micros(h.getValueAtPercentile(50)), micros(h.getValueAtPercentile(90)),
                micros(h.getValueAtPercentile(99)), micros(h.getValueAtPercentile(99.9)), micros(h.getMaxValue()));
        out.printf("over %d ms   %,d (%.4f%%)%n", sloMillis, overSlo, 100.0 * overSlo / Math.max(1, h.getTotalCount()));
        System.gc();
        out.printf("heap        %,d MB used after GC, of %,d MB max%n",
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20,
                Runtime.getRuntime().maxMemory() >> 20);
    }

    /** Takes due requests, looks up a random key, records latency from the intended start. */
    static final class Worker extends Thread {
        static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(10);

        private final ElasticStore store;
        private final OpenLoopSchedule schedule;
        private final int keys;
        private final long firstRecorded;
        private final SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
        final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
        long lastDoneNanos;
        long errors;

        Worker(ElasticStore store, OpenLoopSchedule schedule, int keys, long firstRecorded, int n) {
            super("open-loop-worker-" + n);
            this.store = store;
            this.schedule = schedule;
            this.keys = keys;
            this.firstRecorded = firstRecorded;
        }

        @Override
        public void run() {
            byte[] key = new byte[BenchmarkDataset.KEY_LENGTH];
            ByteBuffer value = ByteBuffer.allocateDirect(BenchmarkDataset.VALUE_SIZE);
            try {
                for (long i = schedule.next(); i >= 0; i = schedule.next()) {
                    BenchmarkDataset.writeKey(random.nextInt(keys), key);
                    value.clear();
                    int n = store.get(key, value);
                    long done = System.nanoTime();
                    if (i < firstRecorded) {
                        continue;
                    }
                    if (n != BenchmarkDataset.VALUE_SIZE) {
                        errors++;
                    }
                    long intended = schedule.intendedStart(i);
                    long latency = Math.min(HIGHEST_NANOS, Math.max(0, done - intended));
                    histogram.recordValue(latency);
                    lastDoneNanos = done;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static double micros(long nanos) {
        return nanos / 1000.0;
    }
}
