// OpenLoopSchedule -- releases numbered requests at their intended start times, for OpenLoopGet's workers.
package io.elastikey.perf.store;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Request {@code i} (0-based) is due at {@link #intendedStart}{@code (i) = start + i x 10^9 / rate}
 * nanoseconds. The scheduler thread ({@link #run}) adds one permit per request as it comes due;
 * a worker's {@link #next} takes a permit, then the next request number, so a request is never
 * handed out before its intended start, and a backlog (workers slower than the rate) waits as
 * permits without costing memory. The scheduler parks between releases, so it may release a few
 * requests late, by the OS's timer slack (tens of microseconds); their latency counts from the
 * intended start all the same, which errs on the side of overstating it.
 */
final class OpenLoopSchedule implements Runnable {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Lead time from construction to the first request, for threads to start. */
    private static final long LEAD_NANOS = 20_000_000L;

    private final long rate;
    private final long total;
    private final int workers;
    private final long startNanos = System.nanoTime() + LEAD_NANOS;
    private final Semaphore due = new Semaphore(0);
    private final AtomicLong claimed = new AtomicLong();

    /** {@code total} requests at {@code rate} per second, taken by {@code workers} threads. */
    OpenLoopSchedule(long rate, long total, int workers) {
        this.rate = rate;
        this.total = total;
        this.workers = workers;
    }

    long intendedStart(long request) {
        return startNanos + request * NANOS_PER_SECOND / rate;
    }

    /** Releases every request at its time, then one end-of-schedule permit per worker. */
    @Override
    public void run() {
        long released = 0;
        while (released < total) {
            long elapsed = System.nanoTime() - startNanos;
            long dueNow = elapsed < 0 ? 0 : Math.min(total, elapsed * rate / NANOS_PER_SECOND + 1);
            if (dueNow > released) {
                due.release((int) (dueNow - released));
                released = dueNow;
            }
            long wait = intendedStart(released) - System.nanoTime();
            if (wait > 0 && released < total) {
                LockSupport.parkNanos(wait);
            }
        }
        due.release(workers);
    }

    /** The next request number once it is due, or -1 when the schedule is over. */
    long next() throws InterruptedException {
        due.acquire();
        long i = claimed.getAndIncrement();
        return i < total ? i : -1;
    }
}
