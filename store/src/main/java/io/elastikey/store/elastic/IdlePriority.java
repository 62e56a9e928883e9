// IdlePriority -- moves the calling thread to Linux's SCHED_IDLE policy, so background work runs only on idle cores.
package io.elastikey.store.elastic;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Background work that must not delay lookups (a resize copying gigabytes) is best left to the kernel's scheduler:
 * under {@code SCHED_IDLE} a thread gets a core only when no thread of normal priority wants it, and a normal thread
 * that wakes up (a lookup worker) preempts it at once rather than at the next scheduler tick. Pacing in Java
 * (see {@link ResizePacer}) can only guess from counters after the fact; the scheduler knows at the microsecond.
 * The key server's native nonce filler lowers itself the same way ({@code nonce_pool_lower_priority}), and so do the
 * threads that make keys for a {@code keys generate} run inside a serving key server.
 *
 * <p>Java has no call for a thread's scheduling policy, so the thread finds its own kernel id
 * ({@code /proc/thread-self} links to {@code <pid>/task/<tid>}) and has util-linux's {@code chrt --idle} set it; where
 * that fails, {@code renice -n 19} (the weakest normal priority, which Linux applies per thread). Lowering one's own
 * priority needs no privilege. Both are one process start per thread, once.
 *
 * <p>What an idle-priority thread must not do is hold something a normal thread waits for while it is starved: the
 * resizer holds a key's stripe lock for one copy only (microseconds), and a waiter parks, which frees the core the
 * resizer then gets.
 */
public final class IdlePriority {

    /** How the calling thread ended up. */
    public enum Outcome { IDLE, NICE_19, UNCHANGED }

    private static final Path THREAD_SELF = Path.of("/proc/thread-self");

    private IdlePriority() {
    }

    /** Lowers the calling thread: SCHED_IDLE if possible, else nice 19, else nothing (never throws). */
    public static Outcome lowerCurrentThread() {
        String tid = currentThreadId();
        if (tid == null) {
            return Outcome.UNCHANGED;
        }
        if (run(List.of("chrt", "--idle", "--pid", "0", tid))) {
            return Outcome.IDLE;
        }
        if (run(List.of("renice", "-n", "19", "-p", tid))) {
            return Outcome.NICE_19;
        }
        return Outcome.UNCHANGED;
    }

    /** The kernel's id of the calling thread, or null where /proc/thread-self does not exist (not Linux). */
    public static String currentThreadId() {
        try {
            Path target = Files.readSymbolicLink(THREAD_SELF); // "<pid>/task/<tid>"
            return target.getFileName().toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** The scheduling policy of a thread as /proc shows it (field 41 of stat): 5 is SCHED_IDLE. For tests. */
    public static int policyOf(String tid) throws IOException {
        String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[41 - 3]); // fields after the name start at field 3
    }

    private static boolean run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false; // not installed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
