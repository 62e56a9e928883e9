// StoreDemo -- `elastikey store-demo`: the elastic store loading, serving and scaling its memory up and down.
package io.elastikey.launcher.demo;

import io.elastikey.launcher.cli.ProgressBar;
import io.elastikey.protocol.config.FileTrees;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.ResidencyPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import io.elastikey.store.elastic.hot.HotTier;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The store half of the suite's demo: load values with a progress bar into an ElasticStore whose
 * budget holds a tenth of them, serve a skewed lookup workload, scale the budget to all of them,
 * then back down, printing hit ratio and lookup latency at each step.
 */
@Command(name = "store-demo", mixinStandardHelpOptions = true,
        description = "Load 100,000 x 4 KB values into an ElasticStore holding 10%% in memory, scale the memory "
                + "budget to 100%% and back, printing hit ratio and lookup latency at each step.")
public final class StoreDemo implements Callable<Integer> {

    @Option(names = "--data", description = "Data directory (default: a temporary directory, deleted at exit).")
    Path data;

    @Option(names = "--entries", defaultValue = "100000", description = "Values to load (default: ${DEFAULT-VALUE}).")
    int entries;

    @Option(names = "--value-size", defaultValue = "4096", description = "Bytes per value (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--memory-percent", defaultValue = "10",
            description = "Share of the values the small budget holds (default: ${DEFAULT-VALUE}).")
    int memoryPercent;

    @Option(names = "--lookups", defaultValue = "300000", description = "Lookups per step (default: ${DEFAULT-VALUE}).")
    int lookups;

    @Option(names = "--policy", defaultValue = "FREQUENCY",
            description = "Residency policy: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ResidencyPolicy policy;

    private final PrintStream out = System.out;
    private volatile boolean terminating;

    @Override
    public Integer call() throws Exception {
        boolean temporary = data == null;
        Path dir = temporary ? Files.createTempDirectory("elastikey-demo") : data;
        long perEntry = HotTier.cost(keyOf(0).length, valueSize);
        long small = perEntry * entries / 100 * memoryPercent;
        long full = perEntry * entries;
        ElasticStoreConfig config = ElasticStoreConfig.builder(dir).memoryBudgetBytes(small).residencyPolicy(policy)
                .indexCapacity(Math.max(1024, entries)).averageKeySize(keyOf(0).length).averageValueSize(valueSize)
                .build();
        out.printf("ElasticStore in %s: %,d values of %,d bytes, policy %s%n", dir, entries, valueSize, policy);
        out.printf("workload: 90%% of lookups go to 10%% of the keys%n%n");
        ElasticStore store = ElasticStore.open(config);
        // SIGTERM or Ctrl-C: close the store (a clean checkpoint) and remove a temporary directory.
        Thread cleanup = new Thread(() -> {
            terminating = true;
            finish(store, temporary ? dir : null);
        }, "demo-shutdown");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            load(store);
            Step.header(out);
            measure(store, memoryPercent + "% budget").print(out);
            resize(store, full, "scale up to 100%");
            measure(store, "100% budget").print(out);
            resize(store, small, "scale down to " + memoryPercent + "%");
            measure(store, memoryPercent + "% budget again").print(out);
        } catch (RuntimeException e) {
            if (terminating) {
                return 143; // the store was closed under us by the shutdown hook: not an error
            }
            throw e;
        } finally {
            if (removeHook(cleanup)) {
                finish(store, temporary ? dir : null);
            }
        }
        return 0;
    }

    private void load(ElasticStore store) {
        ProgressBar bar = new ProgressBar(out, "loading", entries, "values");
        SplittableRandom random = new SplittableRandom(42);
        List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>(1000);
        for (int i = 0; i < entries; i++) {
            byte[] value = new byte[valueSize];
            random.nextBytes(value);
            batch.add(new AbstractMap.SimpleImmutableEntry<>(keyOf(i), value));
            if (batch.size() == 1000 || i == entries - 1) {
                store.putAll(batch);
                batch.clear();
                bar.update(i + 1L);
            }
        }
        bar.finish(entries);
        out.println();
    }

    private void resize(ElasticStore store, long budget, String label) throws InterruptedException {
        out.println();
        ResizeOperation op = store.resize(budget);
        ProgressBar bar = new ProgressBar(out, label, budget, "bytes");
        while (!op.completion().isDone()) {
            bar.update(op.bytesMoved());
            Thread.sleep(50);
        }
        bar.finish(op.bytesMoved());
        out.printf("%s: %s, %,d entries moved in %.0f ms%n%n", label, op.state(), op.entriesMoved(),
                op.elapsedNanos() / 1e6);
    }

    /** Runs the skewed workload and reports the step's hit ratio and latency. */
    private Step measure(ElasticStore store, String name) {
        StoreStats before = store.stats();
        Histogram latency = new Histogram(3_600_000_000L, 3);
        ByteBuffer buf = ByteBuffer.allocateDirect(valueSize);
        SplittableRandom random = new SplittableRandom(7);
        int hot = Math.max(1, entries / 10);
        for (int i = 0; i < lookups; i++) {
            int k = random.nextInt(10) < 9 ? random.nextInt(hot) * 10 % entries : random.nextInt(entries);
            byte[] key = keyOf(k);
            buf.clear();
            long t0 = System.nanoTime();
            int n = store.get(key, buf);
            latency.recordValue(System.nanoTime() - t0);
            if (n != valueSize) {
                throw new IllegalStateException("lookup of key " + k + " returned " + n + " bytes");
            }
        }
        StoreStats after = store.stats();
        long hits = after.hits() - before.hits();
        long misses = after.misses() - before.misses();
        return new Step(name, after.memoryBudgetBytes(), after.memoryEntries(), hits + misses == 0 ? 0
                : (double) hits / (hits + misses), latency);
    }

    /** False when the JVM is already shutting down: then the hook does the cleanup. */
    private static boolean removeHook(Thread hook) {
        try {
            return Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return false;
        }
    }

    private static void finish(ElasticStore store, Path temporaryDir) {
        store.close();
        if (temporaryDir != null) {
            try {
                FileTrees.delete(temporaryDir);
            } catch (IOException e) {
                System.err.println("could not remove " + temporaryDir + ": " + e.getMessage());
            }
        }
    }

    private static byte[] keyOf(int i) {
        return String.format("key-%09d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /** One row of the demo's table. */
    record Step(String name, long budgetBytes, long memoryEntries, double hitRatio, Histogram latency) {

        static void header(PrintStream out) {
            out.printf("%-20s %10s %12s %8s %9s %9s %9s %9s %9s%n", "step", "budget", "in memory", "hits",
                    "p50 us", "p90 us", "p99 us", "p99.9 us", "max us");
        }

        void print(PrintStream out) {
            out.printf("%-20s %7.1f MB %,12d %7.1f%% %9.1f %9.1f %9.1f %9.1f %9.1f%n", name, budgetBytes / 1e6,
                    memoryEntries, hitRatio * 100, us(50), us(90), us(99), us(99.9), latency.getMaxValue() / 1e3);
        }

        private double us(double percentile) {
            return latency.getValueAtPercentile(percentile) / 1e3;
        }
    }
}
