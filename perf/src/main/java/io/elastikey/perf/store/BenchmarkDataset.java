// BenchmarkDataset -- the store directory the read benchmarks share: N x 4 KB values, built once, reused.
package io.elastikey.perf.store;

import io.elastikey.protocol.config.FileTrees;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import io.elastikey.store.elastic.hot.HotTier;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A data directory of {@code keys} entries: key {@code i} is {@code "key-%012d"} (16 ASCII bytes,
 * {@link #writeKey}), its value 4096 fixed random bytes with {@code i} in the first four
 * (big-endian). Loading a million of them writes 4 GB, so the directory lives at a fixed place,
 * {@code ${java.io.tmpdir}/elastikey-bench/store-<keys>-4k}, and is built once: a marker file
 * written after a successful load says it is complete, and {@link #ensureBuilt} rebuilds only a
 * directory without it. Every JMH fork, run and tool of this package reuses it.
 *
 * <p>Readers open it with {@link #config()} and no memory budget, then {@link #resize} to the
 * budget they want: the store's own open would start that resize without handing back its
 * {@link ResizeOperation}. Nothing here writes to the store after the load, so the marker stays
 * true; a reader killed mid-run leaves a log the next open recovers.
 */
public final class BenchmarkDataset {

    /** {@code "key-"} and twelve digits. */
    public static final int KEY_LENGTH = 16;
    public static final int VALUE_SIZE = 4096;
    /** Budget bytes one entry costs in the memory tier. */
    public static final long ENTRY_COST = HotTier.cost(KEY_LENGTH, VALUE_SIZE);

    private static final long MAX_KEYS = 1_000_000_000_000L;
    private static final String MARKER = "BENCHMARK-DATASET-COMPLETE";

    private final int keys;
    private final Path directory;

    private BenchmarkDataset(int keys) {
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be >= 1, was " + keys);
        }
        this.keys = keys;
        this.directory = root().resolve("store-" + keys + "-4k");
    }

    public static BenchmarkDataset of(int keys) {
        return new BenchmarkDataset(keys);
    }

    /** {@code ${java.io.tmpdir}/elastikey-bench}: every benchmark directory lives under it. */
    public static Path root() {
        return Path.of(System.getProperty("java.io.tmpdir"), "elastikey-bench");
    }

    public int keys() {
        return keys;
    }

    public Path directory() {
        return directory;
    }

    /** Settings to open the dataset with: sized for its keys and values, no memory budget. */
    public ElasticStoreConfig.Builder config() {
        return ElasticStoreConfig.builder(directory)
                .memoryBudgetBytes(0)
                .indexCapacity(Math.max(1024, keys))
                .averageKeySize(KEY_LENGTH)
                .averageValueSize(VALUE_SIZE);
    }

    /** The budget that holds {@code percent}% of the values: percent x keys x entry cost / 100. */
    public long budgetForPercent(int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("percent must be in [0, 100], was " + percent);
        }
        return ENTRY_COST * keys * percent / 100;
    }

    // ---- building -------------------------------------------------------------------------------

    /**
     * Builds the directory unless a complete one is there, printing progress to {@code out}.
     * Concurrent callers in other processes wait for one build (a lock file next to the directory).
     */
    public BenchmarkDataset ensureBuilt(PrintStream out) throws IOException {
        Files.createDirectories(root());
        Path lockFile = root().resolve(directory.getFileName() + ".lock");
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = ch.tryLock();
            if (lock == null) {
                out.printf("%s: another process is building it; waiting%n", directory);
                lock = ch.lock();
            }
            try {
                if (isComplete()) {
                    out.printf("%s: reusing %,d keys x %,d bytes%n", directory, keys, VALUE_SIZE);
                } else {
                    build(out);
                }
            } finally {
                lock.release();
            }
        }
        return this;
    }

    private boolean isComplete() throws IOException {
        Path marker = directory.resolve(MARKER);
        return Files.isRegularFile(marker) && Files.readString(marker).equals(markerText());
    }

    private String markerText() {
        return "keys=" + keys + "\nvalueSize=" + VALUE_SIZE + "\nkeyFormat=key-%012d\n";
    }

    private void build(PrintStream out) throws IOException {
        out.printf("%s: building %,d keys x %,d bytes (%,d MB); done once, reused by later runs%n",
                directory, keys, VALUE_SIZE, (long) keys * VALUE_SIZE >> 20);
        FileTrees.delete(directory);
        ElasticStoreConfig cfg = config().fsyncPolicy(FsyncPolicy.NEVER).compactionIntervalMillis(0)
                .recordLatency(false).build();
        byte[] key = new byte[KEY_LENGTH];
        byte[] value = new byte[VALUE_SIZE];
        new SplittableRandom(42).nextBytes(value);
        long t0 = System.nanoTime();
        int step = Math.max(1, keys / 20);
        try (ElasticStore store = ElasticStore.open(cfg)) {
            long loadStart = System.nanoTime();
            for (int i = 0; i < keys; i++) {
                writeKey(i, key);
                stamp(i, value);
                store.put(key, value);
                if ((i + 1) % step == 0) {
                    double s = (System.nanoTime() - loadStart) / 1e9;
                    out.printf("  %,d / %,d keys (%d%%), %.1f s, %,.0f puts/s%n",
                            i + 1, keys, (int) ((i + 1L) * 100 / keys), s, (i + 1) / s);
                }
            }
            if (store.size() != keys) {
                throw new IllegalStateException("loaded " + keys + " keys but the store has " + store.size());
            }
            out.printf("  closing (fsync of the log and index)...%n");
        }
        Files.writeString(directory.resolve(MARKER), markerText(), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, StandardOpenOption.SYNC);
        out.printf("%s: built in %.1f s%n", directory, (System.nanoTime() - t0) / 1e9);
    }

    // ---- keys and values ----------------------------------------------------------------------

    /**
     * Reads every file of the dataset once. A miss then costs a read from the page cache, in every run alike, rather
     * than whatever part of 4 GB the disk cache happened to hold after the machine's last job (a 0% run right after
     * an 8 GB past-RAM run warmed up at 28,000 lookups/s and measured 315,000 ± 80,000).
     */
    public void warmPageCache(PrintStream out) throws IOException {
        long t0 = System.nanoTime();
        long bytes = 0;
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                try (FileChannel channel = FileChannel.open(file)) {
                    for (int n = channel.read(buffer.clear()); n >= 0; n = channel.read(buffer.clear())) {
                        bytes += n;
                    }
                }
            }
        }
        out.printf("page cache: read %,d MB of %s in %.1f s%n", bytes >> 20, directory,
                (System.nanoTime() - t0) / 1e9);
    }

    /** Writes key {@code i}, {@code "key-%012d"}, into {@code dst[0..16)} without allocating. */
    public static void writeKey(long i, byte[] dst) {
        if (i < 0 || i >= MAX_KEYS) {
            throw new IllegalArgumentException("key index must be in [0, 10^12), was " + i);
        }
        dst[0] = 'k';
        dst[1] = 'e';
        dst[2] = 'y';
        dst[3] = '-';
        long v = i;
        for (int p = KEY_LENGTH - 1; p >= 4; p--) {
            dst[p] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
    }

    /** Key {@code i} as a new array. */
    public static byte[] key(long i) {
        byte[] k = new byte[KEY_LENGTH];
        writeKey(i, k);
        return k;
    }

    private static void stamp(int i, byte[] value) {
        value[0] = (byte) (i >>> 24);
        value[1] = (byte) (i >>> 16);
        value[2] = (byte) (i >>> 8);
        value[3] = (byte) i;
    }

    /** Whether {@code value} (flipped for reading) is the dataset's value of key {@code i}. */
    public static boolean isValueOf(int i, ByteBuffer value) {
        return value.remaining() == VALUE_SIZE && value.getInt(value.position()) == i;
    }

    /** Fails unless the store returns the right value for the first, middle and last key. */
    public void check(ElasticStore store) {
        ByteBuffer buf = ByteBuffer.allocateDirect(VALUE_SIZE);
        for (int i : new int[] {0, keys / 2, keys - 1}) {
            buf.clear();
            int n = store.get(key(i), buf);
            if (n != VALUE_SIZE || !isValueOf(i, buf.flip())) {
                throw new IllegalStateException(directory + ": key " + i + " read back " + n + " bytes, not its "
                        + VALUE_SIZE + "-byte value; delete the directory to rebuild it");
            }
        }
    }

    // ---- memory budget --------------------------------------------------------------------------

    /**
     * Resizes the store's memory tier to {@code budget} and waits for the end, printing progress
     * every 10 s to {@code out} (null: silent).
     *
     * @throws IllegalStateException unless the resize ended {@link ResizeOperation.State#DONE}
     */
    public static ResizeOperation resize(ElasticStore store, long budget, PrintStream out) {
        ResizeOperation op = store.resize(budget);
        try {
            while (!op.completion().isDone()) {
                try {
                    op.await(10, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    if (out != null) {
                        out.printf("  resizing: %,d of %,d MB moved, %,d entries%n",
                                op.bytesMoved() >> 20, op.targetBytes() >> 20, op.entriesMoved());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + op, e);
        }
        if (op.state() != ResizeOperation.State.DONE) {
            throw new IllegalStateException(op + " ended " + op.state(), op.failure());
        }
        return op;
    }

    /** One line on the memory tier: entries, share of the keys, bytes against the budget. */
    public static String describeMemory(StoreStats s) {
        return String.format("memory tier %,d of %,d entries (%.1f%%), %,d of %,d budget bytes",
                s.memoryEntries(), s.entries(), s.entries() == 0 ? 0.0 : 100.0 * s.memoryEntries() / s.entries(),
                s.memoryBytes(), s.memoryBudgetBytes());
    }
}
