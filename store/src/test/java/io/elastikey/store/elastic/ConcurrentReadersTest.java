// ConcurrentReadersTest -- readers check every value while a writer overwrites and the store resizes and compacts.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.elastic.hot.HotTier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reader threads verify every value they get, byte for byte, while one writer overwrites and
 * deletes keys and the test thread resizes the memory tier up and down (to 0 too) and compacts.
 *
 * <h2>Values</h2>
 * Every write of key {@code k} takes the key's next version {@code v}; whether it is a delete and
 * the value it puts are pure functions of {@code (k, v)}:
 * <pre>
 *   0  int  k
 *   4  int  v
 *   8  N bytes from a generator seeded with (k, v), N = 0 .. 3000 drawn from the same generator
 * </pre>
 * The writer publishes {@code started[k] = v} before it writes version v and {@code done[k] = v}
 * after the write returned. A reader reads {@code done[k]} before its lookup and
 * {@code started[k]} after it: what it gets must be version {@code v} with {@code lo <= v <= hi}
 * (a lookup never returns a value older than one already acknowledged), intact, or absent only
 * when one of those versions is a delete.
 */
class ConcurrentReadersTest {

    private static final int KEYS = 1000;
    private static final int READERS = 3;
    private static final int MAX_PAYLOAD = 3000;
    private static final long MILLIS_PER_POLICY = 4000;

    @TempDir
    Path dir;

    private final AtomicIntegerArray started = new AtomicIntegerArray(KEYS);
    private final AtomicIntegerArray done = new AtomicIntegerArray(KEYS);
    private final Queue<String> problems = new ConcurrentLinkedQueue<>();
    private final LongAdder reads = new LongAdder();
    private final AtomicLong writes = new AtomicLong();
    private volatile boolean stop;

    @ParameterizedTest
    @EnumSource(ResidencyPolicy.class)
    void readersNeverSeeACorruptOrStaleValueWhileTheStoreResizesAndCompacts(ResidencyPolicy policy)
            throws Exception {
        ElasticStoreConfig config = ElasticStoreConfig.builder(dir).residencyPolicy(policy)
                .memoryBudgetBytes(1 << 20).fsyncPolicy(FsyncPolicy.NEVER).segmentSizeBytes(256 << 10)
                .indexCapacity(10_000).averageKeySize(8).averageValueSize(1500).compactionGarbageRatio(0.3)
                .compactionIntervalMillis(100).checkpointIntervalMillis(200).build();
        int resizes = 0;
        int compacted = 0;
        try (ElasticStore store = ElasticStore.open(config)) {
            for (int k = 0; k < KEYS; k++) {
                store.put(key(k), value(k, 0));
            }
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < READERS; i++) {
                threads.add(start("reader-" + i, () -> readLoop(store)));
            }
            threads.add(start("writer", () -> writeLoop(store)));

            long data = KEYS * HotTier.cost(8, 8 + MAX_PAYLOAD / 2);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                    (long) Math.max(1000, MILLIS_PER_POLICY * StoreModelTest.scale()));
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            try {
                for (int round = 0; System.nanoTime() < deadline && problems.isEmpty(); round++) {
                    long budget = switch (rnd.nextInt(4)) {
                        case 0 -> 0;
                        case 1 -> data / 10;
                        case 2 -> data / 2;
                        default -> 2 * data;
                    };
                    ResizeOperation resize = store.resize(budget);
                    resizes++;
                    if (rnd.nextBoolean()) {
                        ResizeOperation.State end = resize.await(60, TimeUnit.SECONDS);
                        if (end != ResizeOperation.State.DONE) {
                            problems.add("resize ended " + end + ": " + resize + ", failure " + resize.failure());
                        }
                    }
                    if (round % 4 == 3) {
                        compacted += store.compactNow(); // the background compactor runs too
                    }
                    if (rnd.nextInt(8) == 0) {
                        checkForEach(store);
                    }
                }
            } finally {
                stop = true;
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(60));
                    if (t.isAlive()) {
                        problems.add(t.getName() + " did not stop");
                    }
                }
            }
            assertThat(problems).as("what readers saw").isEmpty();
            for (int k = 0; k < KEYS; k++) {
                checkFinal(store, k);
            }
            assertThat(problems).as("final values").isEmpty();
        }
        System.out.printf("%s: %,d verified reads, %,d writes, %d resizes, %d segments compacted%n", policy,
                reads.sum(), writes.get(), resizes, compacted);
        assertThat(reads.sum()).isPositive();
        assertThat(writes.get()).isPositive();
    }

    // ---- the threads ----------------------------------------------------------------------------

    private Thread start(String name, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                problems.add(Thread.currentThread().getName() + " failed: " + e);
                e.printStackTrace(System.out);
            }
        }, name);
        t.start();
        return t;
    }

    private void writeLoop(ElasticStore store) {
        SplittableRandom rnd = new SplittableRandom(42);
        while (!stop) {
            int k = rnd.nextInt(KEYS);
            int v = started.get(k) + 1;
            started.set(k, v);
            if (isDelete(k, v)) {
                store.delete(key(k));
            } else {
                store.put(key(k), value(k, v));
            }
            done.set(k, v);
            if (writes.incrementAndGet() % 8 == 0) {
                LockSupport.parkNanos(1_000_000); // leave the disk some time for compaction's fsyncs
            }
        }
    }

    private void readLoop(ElasticStore store) {
        SplittableRandom rnd = new SplittableRandom();
        ByteBuffer heap = ByteBuffer.allocate(8 + MAX_PAYLOAD);
        ByteBuffer direct = ByteBuffer.allocateDirect(8 + MAX_PAYLOAD);
        while (!stop && problems.isEmpty()) {
            int k = rnd.nextInt(KEYS);
            int lo = done.get(k);
            switch (rnd.nextInt(4)) {
                case 0 -> check(k, lo, store.get(key(k)), "get(byte[])");
                case 1 -> checkBuffer(store, k, lo, heap.clear());
                case 2 -> checkBuffer(store, k, lo, direct.clear());
                default -> checkLength(k, lo, store.get(key(k), ByteBuffer.allocate(4)));
            }
            reads.increment();
        }
    }

    private void checkBuffer(ElasticStore store, int k, int lo, ByteBuffer buf) {
        int n = store.get(key(k), buf);
        if (n == KeyValueStore.NOT_FOUND) {
            check(k, lo, null, "get(key, " + (buf.isDirect() ? "direct" : "heap") + " buffer)");
            return;
        }
        if (buf.position() != n) {
            problems.add("get(k" + k + ", buffer) returned " + n + " but advanced the position to " + buf.position());
            return;
        }
        byte[] v = new byte[n];
        buf.flip().get(v);
        check(k, lo, v, "get(key, " + (buf.isDirect() ? "direct" : "heap") + " buffer)");
    }

    /** A too-small buffer: only the length comes back, which must be that of a version in range. */
    private void checkLength(int k, int lo, int n) {
        int hi = started.get(k);
        for (int v = lo; v <= hi; v++) {
            boolean matches = isDelete(k, v) ? n == KeyValueStore.NOT_FOUND : n == 8 + payloadLength(k, v);
            if (matches) {
                return;
            }
        }
        problems.add("get(k" + k + ", small buffer) returned length " + n + ", which no version in [" + lo + ", "
                + hi + "] has");
    }

    /** Checks that {@code actual} is an intact version of key k in [lo, started[k]]. */
    private void check(int k, int lo, byte[] actual, String how) {
        int hi = started.get(k);
        if (actual == null) {
            for (int v = lo; v <= hi; v++) {
                if (isDelete(k, v)) {
                    return;
                }
            }
            problems.add(how + " found k" + k + " absent, but none of its versions [" + lo + ", " + hi
                    + "] is a delete");
            return;
        }
        String bad = corruption(k, actual);
        if (bad != null) {
            problems.add(how + " of k" + k + ": " + bad);
            return;
        }
        int v = ByteBuffer.wrap(actual).getInt(4);
        if (v < lo || v > hi) {
            problems.add(how + " of k" + k + " returned version " + v + "; versions [" + lo + ", " + hi
                    + "] were possible (" + lo + " was already acknowledged)");
        }
    }

    private void checkForEach(ElasticStore store) {
        int[] lo = new int[KEYS];
        for (int k = 0; k < KEYS; k++) {
            lo[k] = done.get(k);
        }
        boolean[] seen = new boolean[KEYS];
        store.forEach((key, value) -> {
            int k = Integer.parseInt(new String(key, StandardCharsets.US_ASCII).substring(1));
            if (seen[k]) {
                problems.add("forEach visited k" + k + " twice");
            }
            seen[k] = true;
            check(k, lo[k], value, "forEach");
        });
        for (int k = 0; k < KEYS; k++) {
            if (!seen[k]) {
                check(k, lo[k], null, "forEach"); // skipped: it must have been deleted at some point
            }
        }
    }

    private void checkFinal(ElasticStore store, int k) {
        int v = started.get(k);
        byte[] actual = store.get(key(k));
        if (isDelete(k, v) ? actual != null : actual == null || !Arrays.equals(actual, value(k, v))) {
            problems.add("after the run k" + k + " should hold version " + v + (isDelete(k, v) ? " (a delete)" : "")
                    + " but holds " + (actual == null ? "nothing" : corruptionOr(k, actual)));
        }
    }

    // ---- values -----------------------------------------------------------------------------------

    private static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.US_ASCII);
    }

    private static boolean isDelete(int k, int v) {
        return v > 0 && new SplittableRandom(seed(k, v) ^ 0xDE1L).nextInt(10) == 0;
    }

    private static int payloadLength(int k, int v) {
        return new SplittableRandom(seed(k, v)).nextInt(MAX_PAYLOAD + 1);
    }

    static byte[] value(int k, int v) {
        SplittableRandom r = new SplittableRandom(seed(k, v));
        int n = r.nextInt(MAX_PAYLOAD + 1);
        ByteBuffer b = ByteBuffer.allocate(8 + n);
        b.putInt(k).putInt(v);
        while (b.hasRemaining()) {
            long x = r.nextLong();
            for (int i = 0; i < 8 && b.hasRemaining(); i++, x >>>= 8) {
                b.put((byte) x);
            }
        }
        return b.array();
    }

    private static long seed(int k, int v) {
        return ((long) k << 32) ^ v ^ 0x9E3779B97F4A7C15L;
    }

    /** Null when {@code actual} is exactly some version of key k, else what is wrong with it. */
    private static String corruption(int k, byte[] actual) {
        if (actual.length < 8) {
            return "a value of " + actual.length + " bytes, too short for its header";
        }
        ByteBuffer b = ByteBuffer.wrap(actual);
        if (b.getInt(0) != k) {
            return "the value of k" + b.getInt(0);
        }
        int v = b.getInt(4);
        if (v < 0 || isDelete(k, v)) {
            return "version " + v + ", which was never put";
        }
        byte[] want = value(k, v);
        if (!Arrays.equals(want, actual)) {
            return "version " + v + " is damaged: " + actual.length + " bytes, expected " + want.length
                    + ", first difference at byte " + Arrays.mismatch(want, actual);
        }
        return null;
    }

    private static String corruptionOr(int k, byte[] actual) {
        String bad = corruption(k, actual);
        return bad != null ? bad : "version " + ByteBuffer.wrap(actual).getInt(4);
    }
}
