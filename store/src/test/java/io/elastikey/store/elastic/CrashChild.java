// CrashChild -- the test's handle on one CrashWriter process: start it, read what it prints, SIGKILL it.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A running {@link CrashWriter}. Two threads pump its stdout (the protocol, parsed into the
 * operations begun and acknowledged per key) and its stderr (the store's log, kept for failure
 * reports and for timing kills). The parsed fields are written by the stdout pump only; read them
 * after {@link #kill()}, which joins it, except {@link #startStates()}, complete once READY.
 */
final class CrashChild {

    /** What a key holds: absent (version 0), a put's version, or a value that failed its checks. */
    record KeyState(long version, String corruption) {
        static final KeyState ABSENT = new KeyState(0, null);

        static KeyState present(long version) {
            return new KeyState(version, null);
        }

        static KeyState corrupt(String why) {
            return new KeyState(-1, why);
        }

        /** The state a read returned: absent for null, else the checked value's version. */
        static KeyState of(int key, byte[] value) {
            if (value == null) {
                return ABSENT;
            }
            try {
                return present(CrashWriter.versionOf(key, value));
            } catch (IllegalArgumentException e) {
                return corrupt(e.getMessage());
            }
        }

        boolean isAbsent() {
            return version == 0 && corruption == null;
        }

        @Override
        public String toString() {
            return corruption != null ? "CORRUPT(" + corruption + ")" : version == 0 ? "absent" : "v" + version;
        }
    }

    /** One operation of the child on a key. */
    record Op(boolean put, long version) {
        KeyState after() {
            return put ? KeyState.present(version) : KeyState.ABSENT;
        }
    }

    final Process process;
    /** Checks of the child or of its protocol that failed. */
    final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    /** Per key, the operation begun and not acknowledged (at most one: a key has one writer). */
    final Map<Integer, Op> begun = new HashMap<>();
    /** Per key, the last operation acknowledged. */
    final Map<Integer, Op> acked = new HashMap<>();
    int puts;
    int deletes;

    private final KeyState[] start;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final long startedNanos = System.nanoTime();
    private volatile long readyNanos;
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    /** Lines on stdout outside the protocol: a thread dump, for one. */
    private final List<String> stray = Collections.synchronizedList(new ArrayList<>());
    private final Thread outPump;
    private final Thread errPump;

    private CrashChild(Process process, int keys) {
        this.process = process;
        this.start = new KeyState[keys];
        this.outPump = pump(process.getInputStream(), this::onLine, "stdout");
        this.errPump = pump(process.getErrorStream(), log::add, "stderr");
    }

    /** Starts {@code CrashWriter dir policy versionBase seed keys} in a JVM with a small heap. */
    static CrashChild start(Path dir, FsyncPolicy policy, long versionBase, long seed, int keys) throws IOException {
        List<String> jvmArgs = new ArrayList<>(ChildJvm.buildJvmFlags());
        jvmArgs.addAll(List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        List<String> cmd = ChildJvm.command(jvmArgs, CrashWriter.class, dir.toString(), policy.name(),
                Long.toString(versionBase), Long.toString(seed), Integer.toString(keys));
        return new CrashChild(new ProcessBuilder(cmd).start(), keys);
    }

    /** Waits for READY; false when the child died first or {@code seconds} passed. */
    boolean awaitReady(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (ready.await(50, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (!process.isAlive()) {
                outPump.join(TimeUnit.SECONDS.toMillis(10));
                return isReady();
            }
        }
        return false;
    }

    boolean isReady() {
        return ready.getCount() == 0;
    }

    /**
     * Waits until a log line from index {@code from} on contains {@code fragment}; false when the
     * child died, {@code millis} passed or, with {@code untilReady}, it printed READY first.
     */
    boolean awaitLog(String fragment, int from, long millis, boolean untilReady) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (int i = from; System.nanoTime() < deadline && process.isAlive(); Thread.sleep(1)) {
            synchronized (log) {
                for (; i < log.size(); i++) {
                    if (log.get(i).contains(fragment)) {
                        return true;
                    }
                }
            }
            if (untilReady && isReady()) {
                return false;
            }
        }
        return false;
    }

    int logLines() {
        return log.size();
    }

    /** Log lines containing {@code fragment}. */
    long countLog(String fragment) {
        synchronized (log) {
            return log.stream().filter(l -> l.contains(fragment)).count();
        }
    }

    String logTail() {
        synchronized (log) {
            return "  child log, last lines:\n    "
                    + String.join("\n    ", log.subList(Math.max(0, log.size() - 30), log.size()));
        }
    }

    /**
     * The stack of the child's main thread, from a thread dump the JVM prints to stdout on SIGQUIT;
     * for a child that does not get READY.
     */
    String mainThreadStack() throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start().waitFor();
        Thread.sleep(1_000);
        synchronized (stray) {
            int from = stray.size() - 1;
            while (from >= 0 && !stray.get(from).startsWith("\"main\"")) {
                from--;
            }
            int to = from < 0 ? 0 : stray.subList(from, stray.size()).indexOf("");
            return from < 0 ? "    (no thread dump)" : "    " + String.join("\n    ", stray.subList(from,
                    to < 0 ? stray.size() : from + to));
        }
    }

    long millisToReady() {
        return isReady() ? (readyNanos - startedNanos) / 1_000_000 : -1;
    }

    /** What the child found in each key when it opened the store; complete once it is READY. */
    KeyState[] startStates() {
        return start.clone();
    }

    /**
     * Sends SIGKILL, then makes sure the process is gone and all it printed has been read.
     * {@code ProcessHandle.destroyForcibly()} sends the same SIGKILL as
     * {@code Process.destroyForcibly()} on Linux, but the latter also closes our ends of the pipes,
     * dropping lines the child wrote before it died that the pumps had not read yet.
     */
    void kill() throws InterruptedException {
        long pid = process.pid();
        boolean wasAlive = process.isAlive();
        process.toHandle().destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child %d ended after SIGKILL", pid).isTrue();
        if (wasAlive) {
            assertThat(process.exitValue()).as("exit status of child %d, 128 + SIGKILL", pid).isEqualTo(137);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("child %d is still alive", pid).isFalse();
        outPump.join(TimeUnit.SECONDS.toMillis(30));
        errPump.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(outPump.isAlive() || errPump.isAlive()).as("pipes of child %d closed", pid).isFalse();
    }

    private void onLine(String line) {
        String[] f = line.split(" ", 5);
        try {
            switch (f[0]) {
                case "STATE" -> start[Integer.parseInt(f[1])] = switch (f[2]) {
                    case "ABSENT" -> KeyState.ABSENT;
                    case "PRESENT" -> KeyState.present(Long.parseLong(f[3]));
                    default -> KeyState.corrupt(line.substring(line.indexOf(f[2]) + f[2].length()).trim());
                };
                case "READY" -> {
                    readyNanos = System.nanoTime();
                    ready.countDown();
                }
                case "BEGIN" -> onBegin(Integer.parseInt(f[2]), new Op(f[1].equals("PUT"), Long.parseLong(f[3])));
                case "ACK" -> onAck(Integer.parseInt(f[2]), new Op(f[1].equals("PUT"), Long.parseLong(f[3])));
                case "FAIL" -> problems.add("the child reports: " + line.substring(5));
                default -> stray.add(line);
            }
        } catch (RuntimeException e) {
            problems.add("unreadable line from the child: '" + line + "' (" + e + ")");
        }
    }

    private void onBegin(int key, Op op) {
        Op open = begun.put(key, op);
        if (open != null) {
            problems.add("key " + key + ": " + op + " began while " + open + " was not acknowledged");
        }
    }

    private void onAck(int key, Op op) {
        if (!op.equals(begun.remove(key))) {
            problems.add("key " + key + ": " + op + " acknowledged but never begun");
        }
        acked.put(key, op);
        if (op.put()) {
            puts++;
        } else {
            deletes++;
        }
    }

    private Thread pump(InputStream in, Consumer<String> sink, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
                for (String line; (line = r.readLine()) != null; ) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                problems.add("lost the rest of the child's " + name + ": " + e);
            }
        }, "crash-child-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
