// GovernorTimeline -- the memory governor at work: a load step up and down, second by second, as a CSV and a PNG.
//
// The script runs it against a real scaleupd process and commits nothing:
//   perf/bin/governor-timeline [OUT_DIR]
// By hand, with an in-process agent (no --socket):
//   ./elastikey loadgen governor --out /tmp/gt
package io.elastikey.perf.governor;

import io.elastikey.perf.store.BenchmarkDataset;
import io.elastikey.perf.load.LoadSteps;
import io.elastikey.perf.load.OpenLoopSchedule;
import io.elastikey.perf.load.ZipfKeys;
import io.elastikey.perf.JvmFlags;
import io.elastikey.perf.LogLevels;
import io.elastikey.perf.chart.TimelineChart;
import io.elastikey.protocol.config.FileTrees;
import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.jni.NativeScaleUpClient;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import io.elastikey.store.governor.GovernorConfig;
import io.elastikey.store.governor.MemoryGovernor;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Loads a fresh {@link ElasticStore} ({@code --keys} x {@code --value-size}, a small starting budget), starts a
 * {@link MemoryGovernor} on its own 1 s thread (real time) talking to scaleupd through the JNI client, and drives
 * open-loop lookups of Zipf-distributed keys in {@link LoadSteps}. Every second it writes one CSV row:
 * <pre>t_s, offered_rps, achieved_rps, budget_mib, grant_mib, hit_ratio, lookup_p99_ms</pre>
 * {@code lookup_p99_ms} is the 99th percentile of the lookups that finished in that second, from each request's
 * intended start (an HdrHistogram {@link Recorder}); {@code hit_ratio} is the store's own hits over lookups in that
 * second; {@code grant_mib} is the agent's grant as the governor last heard it. After the last step it renders the
 * CSV with {@link TimelineChart}.
 *
 * <p>The governor's settings default to a fast demonstration, not to the product's defaults: {@code shrinkAfter}
 * 20 s instead of 5 min, a 5 s cooldown instead of 30 s, and one shrink step that goes back to the minimum.
 */
@Command(name = "governor", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Steps an open-loop lookup load up and down while the memory governor asks scaleupd for memory; "
                + "writes a per-second CSV and renders it as a PNG.")
public final class GovernorTimeline implements Callable<Integer> {

    static final List<String> HEADER = List.of("t_s", "offered_rps", "achieved_rps", "budget_mib", "grant_mib",
            "hit_ratio", "lookup_p99_ms");
    private static final long MIB = 1L << 20;
    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int KEY_LENGTH = BenchmarkDataset.KEY_LENGTH;

    @Option(names = "--out", defaultValue = "${sys:elastikey.home:-${sys:user.dir}}/governor-timeline",
            description = "Directory for governor-timeline.csv and .png (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--socket", description = "A running scaleupd's socket (default: start one in this JVM).")
    Path socket;

    @Option(names = "--client", defaultValue = "native",
            description = "Rescale client: native (libscaleup through JNI) or socket (default: ${DEFAULT-VALUE}).")
    String client;

    @Option(names = "--keys", defaultValue = "400000", description = "Entries (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--value-size", defaultValue = "1024", description = "Bytes per value (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--zipf", defaultValue = "1.3",
            description = "Zipf exponent of key popularity (default: ${DEFAULT-VALUE}).")
    double zipf;

    @Option(names = "--steps", defaultValue = "1000x20,10000x60,1000x20,20x35",
            description = "Load steps RATExSECONDS, comma-separated (default: ${DEFAULT-VALUE}).")
    String steps;

    @Option(names = "--threads", defaultValue = "2", description = "Lookup workers (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--min-mib", defaultValue = "32",
            description = "Starting and minimum budget, MiB (default: ${DEFAULT-VALUE}).")
    long minMib;

    @Option(names = "--max-mib", defaultValue = "512", description = "Maximum budget, MiB (default: ${DEFAULT-VALUE}).")
    long maxMib;

    @Option(names = "--grow-step-mib", defaultValue = "64", description = "One grow, MiB (default: ${DEFAULT-VALUE}).")
    long growStepMib;

    @Option(names = "--shrink-step-mib", defaultValue = "512",
            description = "One shrink, MiB (default: ${DEFAULT-VALUE}: straight back to the minimum).")
    long shrinkStepMib;

    @Option(names = "--grow-miss-rate", defaultValue = "75",
            description = "Misses/s that count as pressure (default: ${DEFAULT-VALUE}).")
    double growMissRate;

    @Option(names = "--grow-after-ticks", defaultValue = "3",
            description = "Ticks of pressure before a grow (default: ${DEFAULT-VALUE}).")
    int growAfterTicks;

    @Option(names = "--cooldown", defaultValue = "5", description = "Seconds after a change (default: ${DEFAULT-VALUE}).")
    int cooldownSeconds;

    @Option(names = "--shrink-after", defaultValue = "20",
            description = "Quiet seconds before a shrink (default: ${DEFAULT-VALUE}).")
    int shrinkAfterSeconds;

    @Option(names = "--quiet-rate", defaultValue = "50",
            description = "Lookups/s at or below which a second is quiet (default: ${DEFAULT-VALUE}).")
    double quietRate;

    @Option(names = "--pool-mib", defaultValue = "1024",
            description = "Pool of the in-process agent, MiB (default: ${DEFAULT-VALUE}; ignored with --socket).")
    long poolMib;

    private final PrintStream console = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new GovernorTimeline()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!JvmFlags.thisJvmHasThem(System.err)) {
            return 2;
        }
        LoadSteps load = LoadSteps.parse(steps);
        GovernorConfig config = governorConfig();
        ZipfKeys zipfKeys = new ZipfKeys(keys, zipf);
        if (threads < 1 || valueSize < 8 || !client.equals("native") && !client.equals("socket")) {
            System.err.println("need --threads >= 1, --value-size >= 8, --client native|socket");
            return 2;
        }
        LogLevels.warnOnly();
        LogLevels.set("io.elastikey.store.governor", "INFO"); // one line per grow, shrink and sync
        Files.createDirectories(out);
        Path work = Files.createTempDirectory("governor-timeline");
        try (ScaleUpAgent agent = socket == null ? startAgent(work) : null) {
            Path agentSocket = agent != null ? agent.socketPath() : socket;
            try (ElasticStore store = load(work.resolve("store"))) {
                warmUp(store, zipfKeys);
                ScaleUpClient c = client.equals("native")
                        ? new NativeScaleUpClient(agentSocket, "store", Duration.ofSeconds(1))
                        : new SocketScaleUpClient(agentSocket, "store", Duration.ofSeconds(1));
                try (MemoryGovernor governor = new MemoryGovernor(store, c, config)) {
                    governor.start();
                    run(store, governor, load, zipfKeys);
                }
            }
        } finally {
            FileTrees.delete(work);
        }
        Path csv = out.resolve("governor-timeline.csv");
        Path png = out.resolve("governor-timeline.png");
        TimelineChart.render(csv, title(load), png, Map.of("hit_ratio", TimelineChart.Scale.FIT,
                "lookup_p99_ms", TimelineChart.Scale.LOG));
        console.printf("wrote %s and %s%n", csv, png);
        return 0;
    }

    GovernorConfig governorConfig() {
        return GovernorConfig.builder().interval(Duration.ofSeconds(1)).minBudgetBytes(minMib * MIB)
                .maxBudgetBytes(maxMib * MIB).growStepBytes(growStepMib * MIB).shrinkStepBytes(shrinkStepMib * MIB)
                .growMissRate(growMissRate).growAfterTicks(growAfterTicks).quietRequestRate(quietRate)
                .shrinkAfter(Duration.ofSeconds(shrinkAfterSeconds)).cooldown(Duration.ofSeconds(cooldownSeconds))
                .build();
    }

    /** Two lines: what was loaded and offered, then how the governor was set. */
    String title(LoadSteps load) {
        StringBuilder steps = new StringBuilder();
        for (LoadSteps.Step step : load.steps()) {
            steps.append(steps.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,dx%d", step.rate(),
                    step.seconds()));
        }
        return String.format(Locale.ROOT, "Memory governor: %,d keys x %,d B, Zipf %.2f; open-loop GETs/s x s: %s\n"
                        + "budget %d-%d MiB, +%d MiB after %d s >= %.0f misses/s, cooldown %d s, "
                        + "shrink after %d s <= %.0f/s; %s",
                keys, valueSize, zipf, steps, minMib, maxMib, growStepMib, growAfterTicks, growMissRate,
                cooldownSeconds, shrinkAfterSeconds, quietRate, client.equals("native") ? "JNI" : "Java client");
    }

    private ScaleUpAgent startAgent(Path work) throws IOException {
        return ScaleUpAgent.start(AgentConfig.builder().socketPath(work.resolve("scaleupd.sock"))
                .ledgerFile(work.resolve("ledger.json")).poolMb(poolMib).build());
    }

    /**
     * A fresh store with every entry on disk and a 1 MiB memory tier: loading into a bigger one would leave it
     * holding the first keys written, whatever their popularity, until misses slowly displace them.
     */
    private ElasticStore load(Path dir) {
        ElasticStoreConfig config = ElasticStoreConfig.builder(dir).memoryBudgetBytes(MIB)
                .indexCapacity(Math.max(1024, keys)).averageKeySize(KEY_LENGTH).averageValueSize(valueSize)
                .fsyncPolicy(FsyncPolicy.NEVER).recordLatency(false).build();
        ElasticStore store = ElasticStore.open(config);
        long t0 = System.nanoTime();
        byte[] value = new byte[valueSize];
        new SplittableRandom(42).nextBytes(value);
        List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            byte[] v = value.clone();
            ByteBuffer.wrap(v).putInt(i);
            batch.add(Map.entry(key(i, new byte[KEY_LENGTH]), v));
            if (batch.size() == 1000 || i == keys - 1) {
                store.putAll(batch);
                batch.clear();
            }
        }
        ResizeOperation op = store.lastResize();
        if (op != null) {
            op.completion().join();
        }
        console.printf("loaded %,d x %,d B in %.1f s%n", keys, valueSize, (System.nanoTime() - t0) / 1e9);
        return store;
    }

    /**
     * Closed-loop lookups before the clock starts, so the JIT has compiled the path and the frequency sketch knows
     * the popular keys; then the resize to the minimum budget fills the tier with them, as a store that has been
     * serving this load for a while would hold.
     */
    private void warmUp(ElasticStore store, ZipfKeys zipfKeys) {
        SplittableRandom random = new SplittableRandom(7);
        byte[] key = new byte[KEY_LENGTH];
        ByteBuffer value = ByteBuffer.allocateDirect(valueSize);
        for (int i = 0; i < 200_000; i++) {
            value.clear();
            store.get(key(zipfKeys.next(random), key), value);
        }
        ResizeOperation op = store.resize(minMib * MIB);
        op.completion().join();
        console.printf("warmed up; budget %d MiB: %s%n", minMib, op);
    }

    private void run(ElasticStore store, MemoryGovernor governor, LoadSteps load, ZipfKeys zipfKeys)
            throws IOException, InterruptedException {
        OpenLoopSchedule schedule = new OpenLoopSchedule(load);
        Recorder recorder = new Recorder(HIGHEST_NANOS, 3);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(worker(store, schedule, zipfKeys, recorder, valueSize, t), "governor-timeline-worker-" + t);
            workers.add(w);
            w.start();
        }
        console.printf("steps %s (%d s), %d workers, governor %s%n", load, load.totalSeconds(), threads,
                governor.config());
        console.println(String.join(",", HEADER));
        Histogram interval = null;
        StoreStats before = store.stats();
        try (TimelineCsv csv = new TimelineCsv(Files.newBufferedWriter(out.resolve("governor-timeline.csv")), HEADER)) {
            for (long second = 1; second <= load.totalSeconds(); second++) {
                long wait = schedule.startNanos() + second * LoadSteps.NANOS_PER_SECOND - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                interval = recorder.getIntervalHistogram(interval);
                StoreStats now = store.stats();
                long hits = now.hits() - before.hits();
                long lookups = hits + now.misses() - before.misses();
                before = now;
                long grant = governor.grantedMb(); // -1 until the agent first answers
                double[] row = {second, load.rateAt(second - 1), interval.getTotalCount(),
                    now.memoryBudgetBytes() / (double) MIB, grant < 0 ? Double.NaN : grant,
                    lookups == 0 ? Double.NaN : (double) hits / lookups,
                    interval.getTotalCount() == 0 ? Double.NaN : interval.getValueAtPercentile(99) / 1e6};
                csv.row(row);
                console.println(TimelineCsv.format(row));
            }
        }
        for (Thread w : workers) {
            w.join();
        }
    }

    private static Runnable worker(ElasticStore store, OpenLoopSchedule schedule, ZipfKeys zipfKeys, Recorder recorder,
                                   int valueSize,
                                   int n) {
        return () -> {
            SplittableRandom random = new SplittableRandom(1000 + n);
            byte[] key = new byte[KEY_LENGTH];
            ByteBuffer value = ByteBuffer.allocateDirect(valueSize);
            try {
                for (long i = schedule.next(); i >= 0; i = schedule.next()) {
                    value.clear();
                    store.get(key(zipfKeys.next(random), key), value);
                    long latency = System.nanoTime() - schedule.intendedStart(i);
                    recorder.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, latency)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** Key {@code i} in the benchmarks' one key form, {@code "key-%012d"}, into {@code dst}; returns it. */
    static byte[] key(long i, byte[] dst) {
        BenchmarkDataset.writeKey(i, dst);
        return dst;
    }
}
