// StoreModelTest -- long random operation sequences on a real store, checked op by op against a HashMap.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.hot.HotTier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A randomized model test: every operation of the store API (put, putAll, compute, both gets, delete,
 * contains, size, stats, forEach) and of its elasticity (resize, compaction, restart) in a long
 * seeded sequence, each result compared with what a {@link HashMap} says it must be. Now and then
 * a copy of the files taken between two operations is opened too, as a killed process would
 * leave them.
 *
 * <p>Keys come from a bounded key space so that overwrites and deletes of present keys are
 * common; values are 0 to 6000 random bytes, so the 64 KiB segments roll over every few dozen
 * writes and compaction always finds work. A failure names the seed, the operation number and the
 * last operations before it.
 *
 * <p>System properties: {@code elastikey.model.seed} (a seed, a comma-separated list of seeds, or
 * {@code random}) replaces the default seeds; {@code elastikey.test.scale} scales the 20,000
 * operations per seed.
 */
class StoreModelTest {

    private static final long[] DEFAULT_SEEDS = {1L, 0x5EED_0002L, 20_260_101L};
    private static final int OPS_PER_SEED = 20_000;
    private static final int KEY_SPACE = 400;
    private static final int MAX_VALUE = 6000;
    private static final int FULL_CHECK_EVERY = 2500;
    private static final byte SENTINEL = (byte) 0xA5;

    static Stream<Arguments> runs() {
        List<Long> seeds = seeds();
        return Stream.of(ResidencyPolicy.values()).flatMap(p -> seeds.stream().map(s -> Arguments.of(p, s)));
    }

    @ParameterizedTest(name = "{0}, seed {1}")
    @MethodSource("runs")
    void randomOperationsAgreeWithAHashMap(ResidencyPolicy policy, long seed, @TempDir Path tmp) throws Exception {
        int ops = (int) Math.max(1, Math.round(OPS_PER_SEED * scale()));
        Run run = new Run(policy, seed, tmp);
        try {
            run.execute(ops);
        } finally {
            run.close();
        }
    }

    /** One seeded sequence against one store directory. */
    private static final class Run {
        private final ResidencyPolicy policy;
        private final long seed;
        private final Path tmp;
        private final Path dir;
        private final Random rnd;
        private final byte[][] keys = new byte[KEY_SPACE][];
        private final Map<ByteBuffer, Integer> keyIds = new HashMap<>();
        private final Map<Integer, byte[]> model = new HashMap<>();
        private final ArrayDeque<String> history = new ArrayDeque<>();
        private final Map<String, Integer> tally = new TreeMap<>();
        private final ByteBuffer heapBuffer = ByteBuffer.allocate(MAX_VALUE + 64);
        private final ByteBuffer directBuffer = ByteBuffer.allocateDirect(MAX_VALUE + 64);
        private ElasticStore store;
        private int op;
        private long getsSinceOpen;

        Run(ResidencyPolicy policy, long seed, Path tmp) {
            this.policy = policy;
            this.seed = seed;
            this.tmp = tmp;
            this.dir = tmp.resolve("store");
            this.rnd = new Random(seed);
            Set<ByteBuffer> seen = new HashSet<>();
            for (int i = 0; i < KEY_SPACE; i++) {
                byte[] k;
                do {
                    k = new byte[1 + rnd.nextInt(48)];
                    rnd.nextBytes(k);
                } while (!seen.add(ByteBuffer.wrap(k)));
                keys[i] = k;
                keyIds.put(ByteBuffer.wrap(k), i);
            }
        }

        void execute(int ops) throws Exception {
            open();
            for (op = 1; op <= ops; op++) {
                step();
                if (op % FULL_CHECK_EVERY == 0) {
                    checkEveryKey();
                }
            }
            note("final check");
            checkForEach();
            checkEveryKey();
            restart();
            System.out.println("StoreModelTest " + policy + " seed " + seed + ": " + ops + " operations, " + tally);
        }

        private void step() throws Exception {
            int dice = rnd.nextInt(1000);
            if (dice < 290) {
                put();
            } else if (dice < 310) {
                compute();
            } else if (dice < 340) {
                putAll();
            } else if (dice < 510) {
                getArray();
            } else if (dice < 680) {
                getIntoBuffer();
            } else if (dice < 770) {
                delete();
            } else if (dice < 860) {
                contains();
            } else if (dice < 960) {
                sizeAndStats();
            } else if (dice < 985) {
                resize();
            } else if (dice < 998) {
                compact();
            } else if (dice < 999) {
                openACopyTakenNow();
            } else {
                restart();
            }
        }

        // ---- operations ---------------------------------------------------------------------

        private void put() {
            int k = rnd.nextInt(KEY_SPACE);
            byte[] value = randomValue();
            note("put k" + k + " (" + value.length + " bytes)");
            byte[] keyArg = keys[k].clone();
            byte[] valueArg = value.clone();
            store.put(keyArg, valueArg);
            // The store must not keep the caller's arrays: scribble over them.
            Arrays.fill(keyArg, (byte) 0);
            Arrays.fill(valueArg, SENTINEL);
            model.put(k, value);
        }

        /** {@link ElasticStore#compute} with each kind of answer: a new value, null (delete), the same array, a throw. */
        private void compute() {
            int k = rnd.nextInt(KEY_SPACE);
            int mode = rnd.nextInt(4);
            byte[] value = randomValue();
            note("compute k" + k + " " + List.of("set (" + value.length + " bytes)", "delete", "keep", "throw")
                    .get(mode));
            byte[][] seen = new byte[1][];
            IllegalStateException refusal = new IllegalStateException("the remap refuses");
            try {
                byte[] before = store.compute(keys[k].clone(), v -> {
                    seen[0] = v == null ? null : v.clone();
                    return switch (mode) {
                        case 0 -> value.clone();
                        case 1 -> null;
                        case 2 -> v;
                        default -> throw refusal;
                    };
                });
                if (mode == 3) {
                    fail("the remap's exception did not reach the caller");
                }
                checkValue("compute(k" + k + ") returned", model.get(k), before);
            } catch (IllegalStateException e) {
                if (e != refusal) {
                    throw e;
                }
            }
            checkValue("compute(k" + k + ") saw", model.get(k), seen[0]);
            if (mode == 0) {
                model.put(k, value);
            } else if (mode == 1) {
                model.remove(k);
            }
        }

        private void putAll() {
            // Mostly a few entries; now and then more than one batch of the store's (ElasticStore.BATCH), over
            // several segments and several of the log's batched writes.
            int n = 1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 2 * ElasticStore.BATCH + 10 : 5);
            List<Map.Entry<byte[], byte[]>> batch = new ArrayList<>();
            StringBuilder what = new StringBuilder("putAll");
            for (int i = 0; i < n; i++) {
                int k = rnd.nextInt(KEY_SPACE);
                byte[] value = randomValue();
                batch.add(Map.entry(keys[k].clone(), value.clone()));
                model.put(k, value); // a key twice in one batch: the later entry wins
                what.append(" k").append(k).append(" (").append(value.length).append(" bytes)");
            }
            note(what.toString());
            store.putAll(batch);
        }

        private void getArray() {
            int k = rnd.nextInt(KEY_SPACE);
            note("get k" + k);
            byte[] actual = store.get(keys[k].clone());
            getsSinceOpen++;
            checkValue("get(k" + k + ")", model.get(k), actual);
            if (actual != null && actual.length > 0) {
                actual[0] ^= 1; // a returned array is the caller's: changing it changes nothing stored
            }
        }

        private void getIntoBuffer() {
            int k = rnd.nextInt(KEY_SPACE);
            byte[] expected = model.get(k);
            ByteBuffer buf = rnd.nextBoolean() ? directBuffer : heapBuffer;
            int length = expected == null ? rnd.nextInt(100) : expected.length;
            int room = length > 0 && rnd.nextInt(4) == 0 ? rnd.nextInt(length) : length + rnd.nextInt(64);
            int pos = rnd.nextInt(16);
            note("get k" + k + " into " + (buf.isDirect() ? "direct" : "heap") + " buffer, position " + pos
                    + ", room " + room);
            buf.clear();
            for (int i = 0; i < buf.capacity(); i++) {
                buf.put(i, SENTINEL);
            }
            buf.limit(Math.min(buf.capacity(), pos + room)).position(pos);
            int limit = buf.limit();

            int n = store.get(keys[k].clone(), buf);
            getsSinceOpen++;

            String what = "get(k" + k + ", buffer)";
            if (buf.limit() != limit) {
                failHere(what + " changed the limit from " + limit + " to " + buf.limit());
            }
            if (expected == null) {
                if (n != KeyValueStore.NOT_FOUND || buf.position() != pos) {
                    failHere(what + " of an absent key returned " + n + " at position " + buf.position()
                            + "; expected NOT_FOUND at position " + pos);
                }
                checkUntouched(what, buf, 0, buf.capacity());
                return;
            }
            if (n != expected.length) {
                failHere(what + " returned length " + n + ", expected " + expected.length);
            }
            if (expected.length > limit - pos) {
                if (buf.position() != pos) {
                    failHere(what + " into a too-small buffer moved the position to " + buf.position());
                }
                checkUntouched(what + " into a too-small buffer", buf, 0, buf.capacity());
                return;
            }
            if (buf.position() != pos + n) {
                failHere(what + " left the position at " + buf.position() + ", expected " + (pos + n));
            }
            byte[] actual = new byte[n];
            buf.duplicate().clear().get(pos, actual);
            checkValue(what, expected, actual);
            checkUntouched(what + " outside the value", buf, 0, pos);
            checkUntouched(what + " outside the value", buf, pos + n, buf.capacity());
        }

        private void delete() {
            int k = rnd.nextInt(KEY_SPACE);
            note("delete k" + k);
            boolean removed = store.delete(keys[k].clone());
            boolean expected = model.remove(k) != null;
            if (removed != expected) {
                failHere("delete(k" + k + ") returned " + removed + ", expected " + expected);
            }
        }

        private void contains() {
            int k = rnd.nextInt(KEY_SPACE);
            note("contains k" + k);
            boolean actual = store.contains(keys[k]);
            if (actual != model.containsKey(k)) {
                failHere("contains(k" + k + ") returned " + actual + ", expected " + model.containsKey(k));
            }
        }

        private void sizeAndStats() {
            note("size and stats");
            if (store.size() != model.size()) {
                failHere("size() is " + store.size() + ", expected " + model.size());
            }
            StoreStats s = store.stats();
            if (s.entries() != model.size()) {
                failHere("stats().entries() is " + s.entries() + ", expected " + model.size());
            }
            if (s.hits() + s.misses() != getsSinceOpen) {
                failHere("stats() counts " + s.hits() + " hits + " + s.misses() + " misses, but " + getsSinceOpen
                        + " lookups were made since the store was opened");
            }
        }

        private void resize() throws Exception {
            long data = modelCost();
            long budget = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 1 + rnd.nextInt(20_000);
                case 2 -> 1 + (long) (rnd.nextDouble() * data);
                default -> 2 * data + (1 << 20) + rnd.nextInt(1 << 20);
            };
            boolean await = rnd.nextBoolean();
            note("resize to " + budget + (await ? " and await it" : "") + " (data costs " + data + ")");
            ResizeOperation resize = store.resize(budget);
            if (!await) {
                return;
            }
            ResizeOperation.State end = resize.await(60, TimeUnit.SECONDS);
            if (end != ResizeOperation.State.DONE) {
                failHere("resize ended " + end + ": " + resize + ", failure " + resize.failure());
            }
            StoreStats s = store.stats();
            if (s.memoryBudgetBytes() != budget || s.memoryBytes() > budget || s.memoryEntries() > model.size()) {
                failHere("after " + resize + " the memory tier holds " + s.memoryEntries() + " entries in "
                        + s.memoryBytes() + " bytes of a " + s.memoryBudgetBytes() + "-byte budget; the store has "
                        + model.size() + " entries");
            }
            if (budget >= 2 * data + (1 << 20)) {
                count("resizes to a budget holding everything", 1);
            }
            if (budget >= 2 * data + (1 << 20) && s.memoryEntries() != model.size()) {
                failHere("a budget of " + budget + " bytes holds all " + model.size() + " entries (they cost "
                        + data + " bytes) but after " + resize + " only " + s.memoryEntries() + " are in memory");
            }
        }

        private void compact() {
            note("compactNow");
            int removed = store.compactNow();
            if (removed < 0) {
                failHere("compactNow() returned " + removed);
            }
            count("segments compacted", removed);
        }

        private void restart() {
            long budget = switch (rnd.nextInt(3)) {
                case 0 -> 0;
                case 1 -> 1 + (long) (rnd.nextDouble() * modelCost());
                default -> 4L << 20;
            };
            note("restart with a budget of " + budget);
            ElasticStore old = store;
            old.close();
            old.close(); // idempotent
            assertThatThrownBy(() -> old.get(keys[0])).as(context()).isInstanceOf(IllegalStateException.class);
            store = null;
            store = ElasticStore.open(config(budget));
            getsSinceOpen = 0;
            checkForEach();
            if (store.size() != model.size()) {
                failHere("after the restart size() is " + store.size() + ", expected " + model.size());
            }
        }

        /**
         * Copies the store's files between two operations, as a process killed at that moment
         * leaves them (the page cache survives a kill, so every write is in the copy), and opens
         * the copy: recovery must find exactly the model. The store itself carries on.
         */
        private void openACopyTakenNow() throws IOException {
            note("open a copy of the files taken now, as a crash would leave them");
            Path copy = tmp.resolve("crash-" + op);
            Files.createDirectories(copy);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (!f.getFileName().toString().equals(DirectoryLock.FILE_NAME)) {
                        Files.copy(f, copy.resolve(f.getFileName()));
                    }
                }
            }
            try (ElasticStore recovered = ElasticStore.open(config(copy, 0))) {
                ElasticStore live = store;
                store = recovered;
                try {
                    checkForEach();
                    if (recovered.size() != model.size()) {
                        failHere("the recovered copy's size() is " + recovered.size() + ", expected " + model.size());
                    }
                } finally {
                    store = live;
                }
            }
            try (Stream<Path> files = Files.list(copy)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.delete(f);
                }
            }
            Files.delete(copy);
        }

        // ---- checks ---------------------------------------------------------------------------

        private void checkEveryKey() {
            for (int k = 0; k < KEY_SPACE; k++) {
                checkValue("full check: get(k" + k + ")", model.get(k), store.get(keys[k]));
                getsSinceOpen++;
            }
        }

        private void checkForEach() {
            Map<Integer, byte[]> seen = new HashMap<>();
            List<String> problems = new ArrayList<>();
            store.forEach((key, value) -> {
                Integer k = keyIds.get(ByteBuffer.wrap(key));
                if (k == null) {
                    problems.add("forEach visited a key that was never written: " + Arrays.toString(key));
                } else if (seen.put(k, value) != null) {
                    problems.add("forEach visited k" + k + " twice");
                }
            });
            if (!problems.isEmpty()) {
                failHere(String.join("\n", problems));
            }
            for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
                checkValue("forEach's value of k" + e.getKey(), e.getValue(), seen.get(e.getKey()));
            }
            if (seen.size() != model.size()) {
                Set<Integer> extra = new HashSet<>(seen.keySet());
                extra.removeAll(model.keySet());
                failHere("forEach visited " + seen.size() + " entries, expected " + model.size()
                        + "; keys that should be absent: " + extra);
            }
        }

        private void checkValue(String what, byte[] expected, byte[] actual) {
            if (Arrays.equals(expected, actual)) {
                return;
            }
            if (expected == null || actual == null) {
                failHere(what + ": expected " + describe(expected) + ", got " + describe(actual));
            }
            failHere(what + ": expected " + describe(expected) + ", got " + describe(actual)
                    + ", first difference at byte " + Arrays.mismatch(expected, actual));
        }

        private void checkUntouched(String what, ByteBuffer buf, int from, int to) {
            ByteBuffer whole = buf.duplicate().clear();
            for (int i = from; i < to; i++) {
                if (whole.get(i) != SENTINEL) {
                    failHere(what + " wrote byte " + i + " of the buffer");
                }
            }
        }

        // ---- helpers --------------------------------------------------------------------------

        private ElasticStoreConfig config(long budget) {
            return config(dir, budget);
        }

        private ElasticStoreConfig config(Path directory, long budget) {
            return ElasticStoreConfig.builder(directory)
                    .memoryBudgetBytes(budget)
                    .residencyPolicy(policy)
                    .fsyncPolicy(FsyncPolicy.NEVER)
                    .segmentSizeBytes(64 << 10)
                    .indexCapacity(10_000)
                    .averageKeySize(24)
                    .averageValueSize(MAX_VALUE / 2)
                    .compactionIntervalMillis(0)
                    .checkpointIntervalMillis(0)
                    .build();
        }

        private void open() {
            store = ElasticStore.open(config(rnd.nextBoolean() ? 0 : 1 << 20));
            getsSinceOpen = 0;
        }

        private byte[] randomValue() {
            int n = rnd.nextInt(10) == 0 ? rnd.nextInt(17) : rnd.nextInt(MAX_VALUE + 1);
            byte[] v = new byte[n];
            rnd.nextBytes(v);
            return v;
        }

        /** What the model's entries would cost in the memory tier. */
        private long modelCost() {
            long sum = 0;
            for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
                sum += HotTier.cost(keys[e.getKey()].length, e.getValue().length);
            }
            return sum;
        }

        private void count(String what, int n) {
            tally.merge(what, n, Integer::sum);
        }

        private void note(String what) {
            count(what.substring(0, what.indexOf(' ') < 0 ? what.length() : what.indexOf(' ')), 1);
            if (history.size() == 20) {
                history.removeFirst();
            }
            history.addLast("#" + op + " " + what);
        }

        private String context() {
            return "policy " + policy + ", seed " + seed + " (rerun with -Delastikey.model.seed=" + seed + "), op #"
                    + op + "; last operations:\n  " + String.join("\n  ", history);
        }

        private void failHere(String message) {
            fail(message + "\n" + context());
        }

        private static String describe(byte[] v) {
            return v == null ? "absent" : v.length + " bytes";
        }

        void close() {
            if (store != null) {
                store.close();
            }
        }
    }

    // ---- configuration from system properties -------------------------------------------------

    private static List<Long> seeds() {
        String p = System.getProperty("elastikey.model.seed", "").trim();
        List<Long> seeds = new ArrayList<>();
        if (p.isEmpty()) {
            for (long s : DEFAULT_SEEDS) {
                seeds.add(s);
            }
        } else if (p.equalsIgnoreCase("random")) {
            seeds.add(new Random().nextLong());
        } else {
            for (String s : p.split(",")) {
                seeds.add(Long.decode(s.trim()));
            }
        }
        return seeds;
    }

    static double scale() {
        String s = System.getProperty("elastikey.test.scale", "").trim();
        return s.isEmpty() ? 1.0 : Double.parseDouble(s);
    }
}
