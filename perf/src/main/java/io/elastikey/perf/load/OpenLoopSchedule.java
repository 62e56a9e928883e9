// OpenLoopSchedule -- hands numbered requests to workers at the times LoadSteps gives them, for the open-loop tools.
package io.elastikey.perf.load;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop clock: request {@code i} is due at {@link #intendedStart}{@code (i)}, whether or not earlier ones
 * have finished. A worker's {@link #next} claims the next request number and returns it once it is due, so no
 * request starts early, and latency counts from the intended start (coordinated omission corrected, as in wrk2).
 *
 * <p>Why the workers pace themselves, with no scheduler thread: a thread that released each request to a waiting
 * worker cost two cross-thread wake-ups per few requests. At the rates the in-process store tools ask for (several
 * hundred thousand gets a second on two cores) those hand-overs were some 40,000 context switches a second and a
 * good part of a core, so the harness, not the store, set the ceiling of "70% of the closed-loop peak". Here a worker
 * that is ahead of its next request parks until it is due (the kernel wakes it by its own timer, tens of
 * microseconds late at most, which counts against the request's latency and so errs on the side of overstating it);
 * a worker that is behind takes the next request at once.
 */
public final class OpenLoopSchedule {

    /** Lead time from construction to the first request, for threads to start. */
    private static final long LEAD_NANOS = 50_000_000L;
    /** Longest single park, so that {@link #stop} reaches a worker waiting for a far-off request soon. */
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final LoadSteps steps;
    private final long startNanos = System.nanoTime() + LEAD_NANOS;
    private final AtomicLong claimed = new AtomicLong();
    private volatile boolean stopped;

    public OpenLoopSchedule(LoadSteps steps) {
        this.steps = steps;
    }

    /** {@link System#nanoTime()} at which the schedule starts (second 0). */
    public long startNanos() {
        return startNanos;
    }

    public long intendedStart(long request) {
        return startNanos + steps.offsetNanos(request);
    }

    /**
     * The next request number once it is due, or -1 when the schedule is over or {@link #stop stopped}.
     *
     * @throws InterruptedException when the calling thread is interrupted while it waits
     */
    public long next() throws InterruptedException {
        if (stopped) {
            return -1;
        }
        long i = claimed.getAndIncrement();
        if (i >= steps.totalRequests()) {
            return -1;
        }
        long due = intendedStart(i);
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            if (stopped) {
                return -1;
            }
            LockSupport.parkNanos(this, Math.min(wait, MAX_PARK_NANOS));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return i;
    }

    /**
     * Ends the schedule early, for a run whose length depends on what it measures (a resize that takes as long as it
     * takes): every worker's {@link #next} returns -1 from now on, within a few milliseconds for one that waits.
     */
    public void stop() {
        stopped = true;
    }
}
