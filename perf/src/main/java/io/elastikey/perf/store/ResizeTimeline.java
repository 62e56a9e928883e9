// ResizeTimeline -- lookups during a memory-budget change 10% -> 100% -> 10% under open-loop load, second by second.
//
// The script perf/bin/resize-timeline runs it (GC log, load average, the PNG); by hand:
//   ./elastikey loadgen resize --out /tmp/rt
package io.elastikey.perf.store;

import io.elastikey.perf.JvmFlags;
import io.elastikey.perf.LogLevels;
import io.elastikey.perf.chart.TimelineChart;
import io.elastikey.perf.governor.TimelineCsv;
import io.elastikey.perf.load.LoadSteps;
import io.elastikey.perf.load.OpenLoopSchedule;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.ResidencyPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The scenario of issue 16, section 3, as one reproducible run over the {@link BenchmarkDataset} ({@code --keys} x
 * 4 KB values): the budget starts at {@code --low-percent} of the values; a closed-loop phase measures the peak GET
 * rate of this harness at that budget (its workers issue gets back to back); then gets arrive open loop at
 * {@code --load-percent} of that peak (uniformly random keys, latency from each request's intended start, so a stall
 * counts in every request due during it). {@code --grow-after} seconds in, the budget goes to {@code --high-percent};
 * {@code --settle} seconds after that resize ends it goes back to the low budget; {@code --settle} seconds after the
 * shrink ends the run stops (or at {@code --max-seconds}).
 *
 * <p>Every second one CSV row ({@link #HEADER}): the budget, the bytes in the table that serves lookups, the bytes
 * the running resize has copied so far (its rebuild and its fill; misses admitted meanwhile not counted), the store's
 * hit ratio in that second, p50, p99 and max of the lookups that finished in
 * it, the garbage collector's time in it and the resizer thread's CPU. At the end: the latency by phase (before,
 * during the grow, between, during the shrink, after; each request counted in the phase it was due in) and the PNG.
 */
@Command(name = "resize", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Open-loop gets at a share of the measured peak while the memory budget goes low -> high -> "
                + "low; writes resize-timeline.csv (one row per second) and resize-timeline.png.")
public final class ResizeTimeline implements Callable<Integer> {

    static final List<String> HEADER = List.of("t_s", "budget_mib", "tier_mib", "moved_mib", "hit_ratio",
            "gets_per_s", "p50_ms", "p99_ms", "max_ms", "gc_ms", "resizer_cpu_pct");
    static final String[] PHASES = {"before", "during grow", "between", "during shrink", "after"};
    private static final long MIB = 1L << 20;
    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);

    @Option(names = "--out", defaultValue = "/tmp/elastikey-resize-timeline",
            description = "Directory for resize-timeline.csv and .png (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--keys", defaultValue = "1000000", description = "Dataset size; built under "
            + "${java.io.tmpdir}/elastikey-bench if missing, 4 KB values (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--low-percent", defaultValue = "10",
            description = "Budget at the start and after the shrink, %% of the values (default: ${DEFAULT-VALUE}).")
    int lowPercent;

    @Option(names = "--high-percent", defaultValue = "100",
            description = "Budget after the grow, %% of the values (default: ${DEFAULT-VALUE}).")
    int highPercent;

    @Option(names = "--threads", defaultValue = "2", description = "Lookup workers (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--peak-seconds", defaultValue = "10",
            description = "Closed-loop seconds that measure the peak, after as many unmeasured (default: "
                    + "${DEFAULT-VALUE}).")
    int peakSeconds;

    @Option(names = "--load-percent", defaultValue = "70",
            description = "Open-loop rate as %% of the measured peak (default: ${DEFAULT-VALUE}).")
    int loadPercent;

    @Option(names = "--rate", defaultValue = "0",
            description = "Gets/s; skips the peak measurement (default: ${DEFAULT-VALUE}: --load-percent of peak).")
    int rate;

    @Option(names = "--warmup", defaultValue = "5",
            description = "Open-loop seconds before the timeline starts (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--grow-after", defaultValue = "10",
            description = "Timeline seconds before the grow (default: ${DEFAULT-VALUE}).")
    int growAfterSeconds;

    @Option(names = "--settle", defaultValue = "15",
            description = "Seconds after each resize ends before the next step (default: ${DEFAULT-VALUE}).")
    int settleSeconds;

    @Option(names = "--max-seconds", defaultValue = "170",
            description = "The timeline ends here even if a resize has not (default: ${DEFAULT-VALUE}).")
    int maxSeconds;

    @Option(names = "--resize-duty", defaultValue = "-1",
            description = "The store's resizeDutyCycle (default: the store's own).")
    double resizeDuty;

    @Option(names = "--resize-idle-priority", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Run the resizer at the OS's idle priority (default: ${DEFAULT-VALUE}).")
    boolean resizeIdlePriority;

    @Option(names = "--warm-page-cache", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Read the dataset's files once first, so that misses read the page cache, not the disk, "
                    + "in every run alike (default: ${DEFAULT-VALUE}).")
    boolean warmPageCache;

    @Option(names = "--policy", defaultValue = "FREQUENCY",
            description = "Residency policy: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ResidencyPolicy policy;

    private final PrintStream console = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ResizeTimeline()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!JvmFlags.thisJvmHasThem(System.err)) {
            return 2;
        }
        if (threads < 1 || peakSeconds < 1 || loadPercent < 1 || rate < 0 || lowPercent < 0 || highPercent > 100
                || lowPercent >= highPercent || maxSeconds <= growAfterSeconds) {
            System.err.println("need --threads >= 1, --peak-seconds >= 1, --load-percent >= 1, --rate >= 0, "
                    + "0 <= --low-percent < --high-percent <= 100, --max-seconds > --grow-after");
            return 2;
        }
        LogLevels.warnOnly();
        LogLevels.set("io.elastikey.store.elastic.Resizer", "INFO"); // one line per resize
        Files.createDirectories(out);
        BenchmarkDataset data = BenchmarkDataset.of(keys).ensureBuilt(console);
        if (warmPageCache) {
            data.warmPageCache(console);
        }
        ElasticStoreConfig.Builder config = data.config().residencyPolicy(policy).recordLatency(false)
                .resizeIdlePriority(resizeIdlePriority);
        if (resizeDuty > 0) {
            config.resizeDutyCycle(resizeDuty);
        }
        String title;
        try (ElasticStore store = ElasticStore.open(config.build())) {
            data.check(store);
            ResizeOperation op = BenchmarkDataset.resize(store, data.budgetForPercent(lowPercent), console);
            console.printf("%d%% budget: %s in %.1f s%n", lowPercent, BenchmarkDataset.describeMemory(store.stats()),
                    op.elapsedNanos() / 1e9);
            int openRate = rate;
            if (openRate == 0) {
                double peak = closedLoopPeak(store);
                openRate = (int) Math.max(1, Math.round(peak * loadPercent / 100));
                console.printf("peak %,.0f gets/s closed loop (%d workers, %d%% budget); open loop at %d%%: %,d/s%n",
                        peak, threads, lowPercent, loadPercent, openRate);
            }
            Phases phases = timeline(store, data, openRate);
            phases.report(console);
            title = title(openRate);
        }
        Path csv = out.resolve("resize-timeline.csv");
        Path png = out.resolve("resize-timeline.png");
        TimelineChart.render(csv, title, png, Map.of("hit_ratio", TimelineChart.Scale.FIT,
                "p50_ms", TimelineChart.Scale.LOG, "p99_ms", TimelineChart.Scale.LOG,
                "max_ms", TimelineChart.Scale.LOG));
        console.printf("wrote %s and %s%n", csv, png);
        return 0;
    }

    String title(int openRate) {
        return String.format(Locale.ROOT, "ElasticStore lookups while the budget goes %d%% -> %d%% -> %d%% of %,d keys "
                        + "x 4 KB\nopen loop at %,d gets/s (%s), %d workers, uniform keys; resizer at %s priority, "
                        + "duty cycle %s", lowPercent, highPercent, lowPercent, keys, openRate,
                rate > 0 ? "--rate" : loadPercent + "% of the closed-loop peak", threads,
                resizeIdlePriority ? "idle" : "normal", resizeDuty > 0 ? Double.toString(resizeDuty) : "default");
    }

    /** Gets back to back on every worker: {@code peakSeconds} unmeasured, then {@code peakSeconds} counted. */
    private double closedLoopPeak(ElasticStore store) throws InterruptedException {
        AtomicLong done = new AtomicLong();
        long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(peakSeconds);
        long end = warmEnd + TimeUnit.SECONDS.toNanos(peakSeconds);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int n = t;
            Thread w = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(100 + n);
                byte[] key = new byte[BenchmarkDataset.KEY_LENGTH];
                ByteBuffer value = ByteBuffer.allocateDirect(BenchmarkDataset.VALUE_SIZE);
                long count = 0;
                for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                    for (int i = 0; i < 64; i++) {
                        BenchmarkDataset.writeKey(random.nextInt(keys), key);
                        value.clear();
                        store.get(key, value);
                    }
                    if (now >= warmEnd) {
                        count += 64;
                    }
                }
                done.addAndGet(count);
            }, "resize-timeline-peak-" + t);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        return done.get() / (double) peakSeconds;
    }

    private Phases timeline(ElasticStore store, BenchmarkDataset data, int openRate)
            throws IOException, InterruptedException {
        OpenLoopSchedule schedule = new OpenLoopSchedule(
                new LoadSteps(List.of(new LoadSteps.Step(openRate, warmupSeconds + maxSeconds))));
        long timelineStart = schedule.startNanos() + TimeUnit.SECONDS.toNanos(warmupSeconds);
        Phases phases = new Phases(threads);
        // One recorder and one set of phase histograms per worker: at a quarter of a million gets a second, a shared
        // one was a contended lock or atomic on every request, a cost of the harness, not of the store.
        SingleWriterRecorder[] recorders = new SingleWriterRecorder[threads];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            recorders[t] = new SingleWriterRecorder(HIGHEST_NANOS, 3);
            Thread w = new Thread(worker(store, schedule, timelineStart, recorders[t], phases, t),
                    "resize-timeline-worker-" + t);
            workers.add(w);
            w.start();
        }
        console.printf("%,d gets/s open loop: %d s warm-up, then the timeline (grow at %d s, shrink %d s after it)%n",
                openRate, warmupSeconds, growAfterSeconds, settleSeconds);
        console.println(String.join(",", HEADER));
        Sampler sampler = new Sampler(store);
        ResizeOperation running = null;
        long settledAt = Long.MAX_VALUE;
        Histogram interval = new Histogram(HIGHEST_NANOS, 3);
        Histogram[] perWorker = new Histogram[threads];
        try (TimelineCsv csv = new TimelineCsv(Files.newBufferedWriter(out.resolve("resize-timeline.csv")), HEADER)) {
            sleepUntil(timelineStart);
            sampler.sample(null);
            for (SingleWriterRecorder r : recorders) {
                r.reset();
            }
            for (int second = 1; second <= maxSeconds; second++) {
                sleepUntil(timelineStart + TimeUnit.SECONDS.toNanos(second));
                interval.reset();
                for (int t = 0; t < threads; t++) {
                    perWorker[t] = recorders[t].getIntervalHistogram(perWorker[t]);
                    interval.add(perWorker[t]);
                }
                double[] row = sampler.row(second, interval, running);
                csv.row(row);
                console.println(TimelineCsv.format(row));
                if (running != null && running.completion().isDone()) {
                    console.printf("%s%n", running);
                    settledAt = second + settleSeconds;
                    running = null;
                }
                if (second == growAfterSeconds) {
                    phases.started(System.nanoTime());
                    running = store.resize(data.budgetForPercent(highPercent));
                    running.completion().thenRun(() -> phases.ended(System.nanoTime()));
                } else if (second == settledAt && phases.resizesStarted() == 1) {
                    phases.started(System.nanoTime());
                    running = store.resize(data.budgetForPercent(lowPercent));
                    running.completion().thenRun(() -> phases.ended(System.nanoTime()));
                    settledAt = Long.MAX_VALUE;
                } else if (second == settledAt) {
                    break;
                }
            }
        }
        schedule.stop();
        for (Thread w : workers) {
            w.join();
        }
        return phases;
    }

    private Runnable worker(ElasticStore store, OpenLoopSchedule schedule, long timelineStart,
                            SingleWriterRecorder recorder,
                            Phases phases, int n) {
        return () -> {
            SplittableRandom random = new SplittableRandom(1000 + n);
            byte[] key = new byte[BenchmarkDataset.KEY_LENGTH];
            ByteBuffer value = ByteBuffer.allocateDirect(BenchmarkDataset.VALUE_SIZE);
            try {
                for (long i = schedule.next(); i >= 0; i = schedule.next()) {
                    BenchmarkDataset.writeKey(random.nextInt(keys), key);
                    value.clear();
                    store.get(key, value);
                    long intended = schedule.intendedStart(i);
                    long latency = Math.min(HIGHEST_NANOS, Math.max(0, System.nanoTime() - intended));
                    if (intended - timelineStart >= 0) {
                        recorder.recordValue(latency);
                        phases.record(n, intended, latency);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /** What one CSV row needs besides the latency: store counters, GC time, the resizer thread's CPU. */
    private static final class Sampler {
        private static final String RESIZER_THREADS = "store-resizer";
        private final Set<Long> resizerThreadIds = new HashSet<>();
        private final ElasticStore store;
        private final ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
        private StoreStats lastStats;
        private long lastGcMillis;
        private long lastResizerCpu;
        private long lastNanos;

        Sampler(ElasticStore store) {
            this.store = store;
        }

        void sample(ResizeOperation ignored) {
            lastStats = store.stats();
            lastGcMillis = gcMillis();
            lastResizerCpu = resizerCpuNanos();
            lastNanos = System.nanoTime();
        }

        double[] row(int second, Histogram interval, ResizeOperation running) {
            StoreStats before = lastStats;
            long gcBefore = lastGcMillis;
            long cpuBefore = lastResizerCpu;
            long nanosBefore = lastNanos;
            sample(running);
            long hits = lastStats.hits() - before.hits();
            long lookups = hits + lastStats.misses() - before.misses();
            long count = interval.getTotalCount();
            return new double[] {second, lastStats.memoryBudgetBytes() / (double) MIB,
                lastStats.memoryBytes() / (double) MIB,
                running == null ? Double.NaN : running.bytesMoved() / (double) MIB,
                lookups == 0 ? Double.NaN : (double) hits / lookups,
                count,
                count == 0 ? Double.NaN : interval.getValueAtPercentile(50) / 1e6,
                count == 0 ? Double.NaN : interval.getValueAtPercentile(99) / 1e6,
                count == 0 ? Double.NaN : interval.getMaxValue() / 1e6,
                lastGcMillis - gcBefore,
                Math.round(1000.0 * (lastResizerCpu - cpuBefore) / (lastNanos - nanosBefore)) / 10.0};
        }

        /**
         * CPU of the resizer's threads: rebuilds run on one, fills on another at idle priority (the same thread when
         * idle priority is off), each started on first use. The search for them (a safepoint, like a thread dump)
         * stops once all are known.
         */
        private long resizerCpuNanos() {
            if (resizerThreadIds.size() < (store.config().resizeIdlePriority() ? 2 : 1)) {
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().startsWith(RESIZER_THREADS)) {
                        resizerThreadIds.add(t.getId());
                    }
                }
            }
            long total = 0;
            for (long id : resizerThreadIds) {
                total += Math.max(0, threadBean.getThreadCpuTime(id));
            }
            return total;
        }

        private static long gcMillis() {
            long total = 0;
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                total += Math.max(0, gc.getCollectionTime());
            }
            return total;
        }
    }

    /**
     * Latency by the phase each request was due in: before the grow, during it, between the two resizes, during the
     * shrink, after it. Boundaries are set by the timeline thread and the resizer's completion; workers read them and
     * record into histograms of their own, merged by {@link #report} once they have stopped.
     */
    static final class Phases {
        private final long[] boundaries = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
        private volatile int set;
        private final Histogram[][] histograms;

        Phases(int workers) {
            histograms = new Histogram[workers][PHASES.length];
            for (Histogram[] worker : histograms) {
                for (int p = 0; p < PHASES.length; p++) {
                    worker[p] = new Histogram(HIGHEST_NANOS, 3);
                }
            }
        }

        synchronized void started(long nanos) {
            boundaries[set] = nanos;
            set++; // the volatile write publishes the boundary
        }

        void ended(long nanos) {
            started(nanos);
        }

        int resizesStarted() {
            return (set + 1) / 2;
        }

        int of(long intended) {
            int known = set;
            int p = 0;
            while (p < known && intended - boundaries[p] >= 0) {
                p++;
            }
            return p;
        }

        /** Called by worker {@code worker} only. */
        void record(int worker, long intended, long latency) {
            histograms[worker][of(intended)].recordValue(latency);
        }

        /** After the workers stopped. */
        Histogram merged(int phase) {
            Histogram h = new Histogram(HIGHEST_NANOS, 3);
            for (Histogram[] worker : histograms) {
                h.add(worker[phase]);
            }
            return h;
        }

        void report(PrintStream out) {
            out.printf("%n%-14s %10s %9s %9s %9s %9s  (us, from intended start)%n", "phase", "count", "p50", "p99",
                    "p99.9", "max");
            for (int p = 0; p < PHASES.length; p++) {
                Histogram h = merged(p);
                if (h.getTotalCount() > 0) {
                    out.printf("%-14s %,10d %,9.1f %,9.1f %,9.1f %,9.1f%n", PHASES[p], h.getTotalCount(),
                            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                            h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
                }
            }
            Histogram before = merged(0);
            if (before.getTotalCount() == 0) {
                return;
            }
            double p99 = before.getValueAtPercentile(99);
            long max = 0;
            for (int p = 0; p < PHASES.length; p++) {
                max = Math.max(max, merged(p).getMaxValue());
            }
            out.printf("p99 during the grow %.2fx, during the shrink %.2fx the p99 before; max of the timeline %.2f ms%n",
                    merged(1).getValueAtPercentile(99) / p99, merged(3).getValueAtPercentile(99) / p99, max / 1e6);
        }
    }
}
