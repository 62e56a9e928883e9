// CrashSafetyTest -- acknowledged writes survive SIGKILL at random moments, round after round on one directory.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.CrashChild.KeyState;
import io.elastikey.store.elastic.CrashChild.Op;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kills a writing store process with a real SIGKILL, round after round on the same directory, and
 * checks after every kill that nothing acknowledged was lost and nothing readable is damaged.
 *
 * <h2>One round</h2>
 * <ol>
 *   <li>Start {@link CrashWriter} in a JVM of its own ({@link CrashChild}). Its open recovers the
 *       store from the previous round's kill, on top of all the earlier recoveries; it then reports
 *       what every key holds, which is checked like the test's own reads.
 *   <li>150 to 900 ms after it is READY, while its two threads write, kill it with SIGKILL and make
 *       sure it is gone.
 *   <li>Open the store in this JVM, check every key, {@code contains}, {@code forEach} and
 *       {@code size}, and close it.
 * </ol>
 *
 * <h2>What a key may hold</h2>
 * The child prints BEGIN before each operation and ACK after it returns. A key may hold the state
 * its last acknowledged operation left (or, when none was acknowledged since the last check, the
 * state seen then) or the state of the one operation on it begun and not acknowledged: the child
 * may have died after the store made it durable and before it printed the ACK. Anything else fails
 * the test: an older version is a lost acknowledged write, a version nobody began is a phantom, a
 * value failing its checksum or content check is corruption, and so is a get that throws.
 *
 * <h2>Where the kills land</h2>
 * <ul>
 *   <li>Anywhere in the write path, group commit, a checkpoint (every 100 ms) or a compaction
 *       (every 50 ms; the bounded key space makes garbage fast, so children compact 10 to 50
 *       segments a second): every round.
 *   <li>Inside a compaction, likely: every third round waits, after the random delay, for the next
 *       "compacted segment" line in the child's log and kills 0 to 10 ms later, when the same pass
 *       is often compacting the next eligible segment or writing its checkpoint. Thread dumps
 *       taken at the kill moment while this test was written found the compactor inside
 *       {@code Compactor.compact} (moving records, rolling a segment, fsyncing, writing the
 *       checkpoint or deleting the file) in 6 of 10 such rounds with ALWAYS but 1 of 10 with
 *       GROUP, whose slower writes rarely leave a second segment to compact; and in 8 of 40 random
 *       kills. So a 40-round run kills about ten compactions.
 *   <li>Between two recoveries with no clean close: every fourth round skips step 3, so the next
 *       child recovers directly from a kill of a child that had itself recovered from a kill.
 *   <li>Inside a recovery: {@link #aStoreKilledDuringItsRecoveryOpensPromptlyAndLosesNothing()}.
 * </ul>
 *
 * <p>System properties: {@code elastikey.test.scale} scales the 20 rounds per policy (at least
 * 3); {@code elastikey.crash.seed} replays a run. Child JVMs get the flags of {@code jvm.properties}
 * (see {@link ChildJvm}).
 */
class CrashSafetyTest {

    static final int KEYS = 300;
    private static final int BASE_ROUNDS = 20;
    private static final long VERSIONS_PER_ROUND = 1_000_000_000L;
    private static final String COMPACTED = "compacted segment";
    /** Chronicle Map's warning as it starts recovering a map that a killed process had open. */
    private static final String INDEX_RECOVERY_STARTS = "Recovery operation needs exclusive access";
    private static final long PROMPT_OPEN_SECONDS = 20;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = FsyncPolicy.class, names = {"ALWAYS", "GROUP"})
    void acknowledgedWritesSurviveRepeatedSigkills(FsyncPolicy policy) throws Exception {
        long seed = Long.getLong("elastikey.crash.seed", System.nanoTime());
        double scale = Double.parseDouble(System.getProperty("elastikey.test.scale", "1.0"));
        int rounds = Math.max(3, (int) Math.round(BASE_ROUNDS * scale));
        Run run = new Run(policy.name(), policy, tmp.resolve("store"), rounds, seed + policy.ordinal());
        long t0 = System.nanoTime();
        print("[%s] %d rounds in %s, seed %d (-Delastikey.crash.seed=%d repeats its random choices)", policy,
                rounds, run.dir, seed + policy.ordinal(), seed);
        int played = 0;
        for (int round = 1; round <= rounds; round++) {
            boolean chained = round % 4 == 2 && round < rounds; // the next child recovers from this kill
            if (!run.round(round, !chained, 60)) {
                break;
            }
            played = round;
        }
        print("[%s] %d of %d rounds played in %d s, %d failed", policy, played, rounds,
                (System.nanoTime() - t0) / 1_000_000_000, run.failures.size());
        assertThat(run.failures).as("crash-safety failures (seed %d)", seed).isEmpty();
    }

    /**
     * A kill while the store recovers from a kill: the open after that must recover as promptly
     * as any other and lose nothing. Each cycle leaves the store unclean (odd rounds), kills the
     * next child in the middle of Chronicle Map's recovery of the index (see
     * {@link Run#interruptRecovery}), then gives the next child {@value #PROMPT_OPEN_SECONDS} s to
     * be READY (it normally takes 1 to 3) before checking everything as the other rounds do.
     */
    @Test
    void aStoreKilledDuringItsRecoveryOpensPromptlyAndLosesNothing() throws Exception {
        long seed = Long.getLong("elastikey.crash.seed", System.nanoTime());
        double scale = Double.parseDouble(System.getProperty("elastikey.test.scale", "1.0"));
        int cycles = Math.max(1, (int) Math.round(2 * scale));
        Run run = new Run("kill during recovery", FsyncPolicy.GROUP, tmp.resolve("store"), 2 * cycles, seed);
        print("[%s] %d cycles in %s, seed %d", run.label, cycles, run.dir, seed);
        for (int cycle = 0; cycle < cycles; cycle++) {
            int round = 2 * cycle + 1;
            if (!run.round(round, false, 60)) {
                break;
            }
            run.interruptRecovery(round + 1);
            if (!run.round(round + 1, true, PROMPT_OPEN_SECONDS)) {
                break;
            }
        }
        assertThat(run.failures).as("failures after kills during recovery (seed %d)", seed).isEmpty();
    }

    /** The rounds of one policy on one directory, and what each key may hold between them. */
    private static final class Run {
        final String label;
        final FsyncPolicy policy;
        final Path dir;
        final int rounds;
        final Random rnd;
        final List<String> failures = new ArrayList<>();
        /** Per key, the states it may hold now; null for a key found damaged (reported then). */
        private List<Set<KeyState>> allowed;

        Run(String label, FsyncPolicy policy, Path dir, int rounds, long seed) {
            this.label = label;
            this.policy = policy;
            this.dir = dir;
            this.rounds = rounds;
            this.rnd = new Random(seed);
            KeyState[] empty = new KeyState[KEYS];
            Arrays.fill(empty, KeyState.ABSENT);
            this.allowed = exactly(empty);
        }

        /**
         * Plays one round and prints its summary: a child that must be READY within
         * {@code readySeconds} writes until killed, then the store is checked here when
         * {@code checkHere}. False when the run cannot go on.
         */
        boolean round(int round, boolean checkHere, long readySeconds) throws IOException, InterruptedException {
            String name = String.format("[%s] round %d/%d", label, round, rounds);
            List<String> problems = new ArrayList<>();
            CrashChild child = CrashChild.start(dir, policy, round * VERSIONS_PER_ROUND, rnd.nextLong(), KEYS);
            String killed;
            try {
                if (!child.awaitReady(readySeconds)) {
                    failures.add(name + ": the child was not READY after " + readySeconds + " s"
                            + (child.process.isAlive() ? "; its main thread:\n" + child.mainThreadStack()
                                    : " (it exited: its open failed?)") + "\n" + child.logTail());
                    return false;
                }
                killed = waitBeforeKill(child, round % 3 == 0);
            } finally {
                kill(child, problems);
            }
            fold(child, problems);
            String recovered = checkHere ? checkHere(name, child, problems)
                    : "not opened here: the next child recovers it";
            if (recovered == null) {
                return false;
            }
            print("%s: ready in %d ms, killed %s | %d acks (%d puts, %d deletes), %d in flight, %d compactions"
                    + " | recovered: %s | %s", name, child.millisToReady(), killed, child.puts + child.deletes,
                    child.puts, child.deletes, child.begun.size(), child.countLog(COMPACTED), recovered,
                    problems.isEmpty() ? "OK" : problems.size() + " PROBLEMS");
            report(name, problems, child);
            return true;
        }

        /** Sleeps 150-900 ms; in a compaction round, then until just after the next compaction. */
        private String waitBeforeKill(CrashChild child, boolean atCompaction) throws InterruptedException {
            int delay = 150 + rnd.nextInt(751);
            Thread.sleep(delay);
            if (!atCompaction) {
                return delay + " ms after READY";
            }
            if (!child.awaitLog(COMPACTED, child.logLines(), 2_000, false)) {
                return delay + " ms after READY + 2 s (no compaction seen)";
            }
            int extra = rnd.nextInt(11);
            Thread.sleep(extra);
            return delay + " ms after READY, then " + extra + " ms after a compaction";
        }

        /**
         * Starts a child on the store a killed child left, and kills it while Chronicle Map
         * recovers the index: as soon as the index header says a recovery is under way, or, should
         * it never say so, 0 to 150 ms after Chronicle's recovery warning. Should the child get as
         * far as writing, its writes count like any other child's.
         */
        void interruptRecovery(int round) throws IOException, InterruptedException {
            String name = String.format("[%s] round %d/%d", label, round, rounds);
            List<String> problems = new ArrayList<>();
            long versionBase = round * VERSIONS_PER_ROUND - VERSIONS_PER_ROUND / 2;
            CrashChild child = CrashChild.start(dir, policy, versionBase, rnd.nextLong(), KEYS);
            String when;
            try {
                boolean started = child.awaitLog(INDEX_RECOVERY_STARTS, 0, 60_000, true);
                if (started && awaitIndexRecoveryUnderWay(child)) {
                    when = "while the index header was marked NOT_COMPLETE";
                } else {
                    int delay = rnd.nextInt(151);
                    Thread.sleep(delay);
                    when = started ? delay + " ms after the index recovery began" : "(no index recovery seen)";
                }
            } finally {
                kill(child, problems);
            }
            fold(child, problems);
            print("%s: interrupted a recovery: killed %s, %s READY, %d acks, index header %s | %s", name, when,
                    child.isReady() ? "after" : "before", child.puts + child.deletes,
                    indexRecoveryUnderWay() ? "left NOT_COMPLETE" : "ready",
                    problems.isEmpty() ? "OK" : problems.size() + " PROBLEMS");
            report(name + " (interrupted recovery)", problems, child);
        }

        /** Polls the index header for 2 s while the child lives; true once it says NOT_COMPLETE. */
        private boolean awaitIndexRecoveryUnderWay(CrashChild child) throws IOException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < deadline && child.process.isAlive() && !child.isReady()) {
                if (indexRecoveryUnderWay()) {
                    return true;
                }
                LockSupport.parkNanos(100_000);
            }
            return false;
        }

        /**
         * Whether the index file's Chronicle header is marked NOT_COMPLETE: its size word, the
         * little-endian int at offset 8, is negative from the moment Chronicle's recovery starts
         * rewriting the map until it has finished (Chronicle's {@code SizePrefixedBlob}).
         */
        private boolean indexRecoveryUnderWay() throws IOException {
            ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            try (FileChannel ch = FileChannel.open(dir.resolve(ElasticStore.INDEX_FILE), StandardOpenOption.READ)) {
                return ch.read(word, 8) == 4 && word.getInt(0) < 0;
            } catch (NoSuchFileException e) {
                return false;
            }
        }

        /** Checks what a killed child saw at its start, then moves each key's allowed states past its writes. */
        private void fold(CrashChild child, List<String> problems) {
            problems.addAll(child.problems);
            if (child.isReady()) { // else it wrote nothing
                KeyState[] start = child.startStates();
                compare("the child's view at start", allowed, start, problems);
                allowed = afterChild(start, child);
            }
        }

        /** Opens the store in this JVM and checks it; a summary, or null when it cannot be opened. */
        private String checkHere(String name, CrashChild child, List<String> problems) {
            long t0 = System.nanoTime();
            KeyState[] seen;
            try {
                seen = observe(dir, policy, problems);
            } catch (RuntimeException e) {
                failures.add(name + ": the store cannot be opened after the kill: " + e + "\n" + child.logTail());
                return null;
            }
            compare("after recovery", allowed, seen, problems);
            allowed = exactly(seen);
            return String.format("size %d, %d keys verified, %d unacknowledged writes kept, open+check %d ms",
                    count(seen), KEYS, keptInFlight(seen, child), (System.nanoTime() - t0) / 1_000_000);
        }

        private void report(String name, List<String> problems, CrashChild child) {
            if (!problems.isEmpty()) {
                failures.add(name + ":\n  " + String.join("\n  ", problems.subList(0, Math.min(20, problems.size())))
                        + (problems.size() > 20 ? "\n  ... " + (problems.size() - 20) + " more" : "")
                        + "\n" + child.logTail());
            }
        }
    }

    private static void kill(CrashChild child, List<String> problems) throws InterruptedException {
        if (!child.process.isAlive()) {
            problems.add("the child exited by itself, status " + child.process.exitValue());
        }
        child.kill();
    }

    /** Opens the store here and reads every key, cross-checking contains, forEach and size. */
    private static KeyState[] observe(Path dir, FsyncPolicy policy, List<String> problems) {
        try (ElasticStore store = ElasticStore.open(CrashWriter.config(dir, policy))) {
            KeyState[] seen = new KeyState[KEYS];
            for (int k = 0; k < KEYS; k++) {
                try {
                    seen[k] = KeyState.of(k, store.get(CrashWriter.key(k)));
                } catch (RuntimeException e) {
                    seen[k] = KeyState.corrupt("get threw " + e);
                }
                boolean contains = store.contains(CrashWriter.key(k));
                if (contains == seen[k].isAbsent()) {
                    problems.add("key " + k + ": contains says " + contains + " but get found " + seen[k]);
                }
            }
            if (store.size() != count(seen)) {
                problems.add("size() is " + store.size() + " but " + count(seen) + " keys were found");
            }
            Map<Integer, KeyState> visited = new HashMap<>();
            store.forEach((key, value) -> {
                String s = new String(key, StandardCharsets.US_ASCII);
                int k = s.matches("key-\\d{1,9}") ? Integer.parseInt(s.substring(4)) : -1;
                if (k < 0 || k >= KEYS || visited.put(k, KeyState.of(k, value)) != null) {
                    problems.add("forEach visited an unexpected or repeated key '" + s + "'");
                }
            });
            for (int k = 0; k < KEYS; k++) {
                KeyState v = visited.getOrDefault(k, KeyState.ABSENT);
                if (!v.equals(seen[k])) {
                    problems.add("key " + k + ": forEach saw " + v + " but get " + seen[k]);
                }
            }
            return seen;
        }
    }

    /** Adds a problem for every key whose state is not among those allowed (null: any valid one). */
    private static void compare(String when, List<Set<KeyState>> allowed, KeyState[] seen, List<String> problems) {
        for (int k = 0; k < KEYS; k++) {
            Set<KeyState> ok = allowed.get(k);
            KeyState got = seen[k];
            if (got.corruption() != null) {
                problems.add(when + ": key " + k + " is damaged: " + got.corruption());
            } else if (ok != null && !ok.contains(got)) {
                String kind = ok.stream().allMatch(s -> s.version() > got.version())
                        ? "an acknowledged write was LOST" : "a write nobody made or an old state came back";
                problems.add(when + ": key " + k + " holds " + got + " but only " + ok + " is allowed: " + kind);
            }
        }
    }

    /** The states each key may hold after a child that started from {@code start}. */
    private static List<Set<KeyState>> afterChild(KeyState[] start, CrashChild child) {
        List<Set<KeyState>> allowed = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            Op acked = child.acked.get(k);
            Op begun = child.begun.get(k);
            Set<KeyState> ok = new LinkedHashSet<>();
            if (acked != null) {
                ok.add(acked.after());
            } else if (start[k].corruption() == null) {
                ok.add(start[k]);
            } else {
                ok = null; // unknown since the damage; reported already
            }
            if (ok != null && begun != null) {
                ok.add(begun.after());
            }
            allowed.add(ok);
        }
        return allowed;
    }

    private static List<Set<KeyState>> exactly(KeyState[] states) {
        List<Set<KeyState>> allowed = new ArrayList<>();
        for (KeyState s : states) {
            allowed.add(s.corruption() == null ? Set.of(s) : null);
        }
        return allowed;
    }

    private static long count(KeyState[] states) {
        return Arrays.stream(states).filter(s -> !s.isAbsent()).count();
    }

    /** Keys whose recovered state is that of a write begun but never acknowledged. */
    private static long keptInFlight(KeyState[] seen, CrashChild child) {
        return child.begun.entrySet().stream()
                .filter(e -> seen[e.getKey()].equals(e.getValue().after()))
                .filter(e -> child.acked.get(e.getKey()) == null
                        || !child.acked.get(e.getKey()).after().equals(e.getValue().after()))
                .count();
    }

    private static void print(String format, Object... args) {
        System.out.println(String.format(format, args));
        System.out.flush();
    }
}
