// OpenLoopSchedule -- releases numbered requests at the times LoadSteps gives them, for the open-loop load tools.
package io.elastikey.perf.load;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop clock: request {@code i} is due at {@link #intendedStart}{@code (i)}, whether or not earlier ones
 * have finished. The scheduler thread ({@link #run}) adds one permit per request as it comes due; a worker's
 * {@link #next} takes a permit, then the next request number, so no request starts early and a backlog waits as
 * permits. Latency counts from the intended start (coordinated omission corrected). The scheduler parks between
 * releases, so it may release a few requests late, by the OS's timer slack; their latency counts from the intended
 * start all the same, which errs on the side of overstating it. A constant rate is one step.
 */
public final class OpenLoopSchedule implements Runnable {

    /** Lead time from construction to the first request, for threads to start. */
    private static final long LEAD_NANOS = 50_000_000L;

    private final LoadSteps steps;
    private final int workers;
    private final long startNanos = System.nanoTime() + LEAD_NANOS;
    private final Semaphore due = new Semaphore(0);
    private final AtomicLong claimed = new AtomicLong();
    private volatile boolean stopped;

    public OpenLoopSchedule(LoadSteps steps, int workers) {
        this.steps = steps;
        this.workers = workers;
    }

    /** {@link System#nanoTime()} at which the schedule starts (second 0). */
    public long startNanos() {
        return startNanos;
    }

    public long intendedStart(long request) {
        return startNanos + steps.offsetNanos(request);
    }

    /** Releases every request at its time, then one end-of-schedule permit per worker. */
    @Override
    public void run() {
        long total = steps.totalRequests();
        long released = 0;
        while (released < total && !stopped) {
            long dueNow = steps.dueBy(System.nanoTime() - startNanos);
            if (dueNow > released) {
                due.release((int) Math.min(Integer.MAX_VALUE, dueNow - released));
                released = dueNow;
            }
            if (released < total && !stopped) {
                long wait = intendedStart(released) - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }
        due.release(workers);
    }

    /** The next request number once it is due, or -1 when the schedule is over or {@link #stop stopped}. */
    public long next() throws InterruptedException {
        due.acquire();
        if (stopped) {
            due.release(); // every other worker waiting gets its end too
            return -1;
        }
        long i = claimed.getAndIncrement();
        return i < steps.totalRequests() ? i : -1;
    }

    /**
     * Ends the schedule early, for a run whose length depends on what it measures (a resize that takes as long as it
     * takes): no request is released after this, and every worker's {@link #next} returns -1 from now on.
     */
    public void stop() {
        stopped = true;
        due.release(workers);
    }
}
