// HandshakeRun -- drives a HandshakeClient open loop (constant rate) or closed loop (fixed concurrency), and records.
package io.elastikey.perf.handshake;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.elastikey.perf.ski.LoadStats;

/**
 * The two ways to load a TLS server with new connections, as the SKI load generator's {@code SkiLoadRun} does for
 * requests.
 *
 * <p><b>Closed loop</b> ({@link #closedLoop}): {@code concurrency} connections are always under way; when one has
 * closed, its slot opens the next. Latency runs from the actual connect, so this measures capacity.
 *
 * <p><b>Open loop</b> ({@link #openLoop}): connection {@code i} is due at {@code start + i / rate}, whatever became
 * of earlier ones, and its latency runs from that intended time (corrected for coordinated omission). One thread keeps
 * the schedule and hands connects to the event loops; when it wakes late it starts the backlog at once. A connection
 * due while {@code maxOpen} are open is not started and counts as {@code BACKLOG_FULL}.
 *
 * <p><b>Priming</b> ({@link #prime}): for resumption, unrecorded connections fill the client's session cache first,
 * so the first measured connections already have sessions to offer.
 *
 * <p>What counts: an attempt started in the measured window (by its start, or intended start) is measured. Its
 * handshake latency goes into the {@link LoadStats} histogram and {@code answered}; a failure at any stage is counted
 * by kind; the client's view of resumption is counted here.
 */
final class HandshakeRun {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Lead time before the first connection, for the progress thread to start. */
    private static final long LEAD_NANOS = 20_000_000L;
    private static final long DRAIN_NANOS = 30_000_000_000L;

    private final HandshakeClient client;
    private final LoadStats stats;
    private final LongAdder attempts = new LongAdder();
    private final LongAdder resumed = new LongAdder();
    private final LongAdder full = new LongAdder();
    private final LongAdder unknown = new LongAdder();
    private final HandshakeClient.Listener recorder = this::record;
    private volatile long measuredStartNanos = Long.MAX_VALUE;
    private volatile long lastDoneNanos;

    HandshakeRun(HandshakeClient client, LoadStats stats) {
        this.client = client;
        this.stats = stats;
    }

    /**
     * Makes {@code count} connections at once, unrecorded, and waits for them to close.
     *
     * @return how many failed, by kind; empty when all handshakes completed
     */
    Map<String, Long> prime(int count, long timeoutNanos) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(count);
        Map<String, Long> failures = new ConcurrentHashMap<>();
        HandshakeClient.Listener primer = attempt -> {
            if (attempt.handshakeNanos() == 0 || attempt.failure() != null) {
                failures.merge(attempt.failure() == null ? "UNKNOWN" : attempt.failure(), 1L, Long::sum);
            }
            done.countDown();
        };
        for (int i = 0; i < count; i++) {
            client.start(System.nanoTime(), false, primer);
        }
        if (!done.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
            failures.merge("PRIMING_TIMEOUT", done.getCount(), Long::sum);
        }
        return new TreeMap<>(failures);
    }

    /** Keeps {@code concurrency} connections under way, {@code warmupNanos} unrecorded, then {@code measuredNanos}. */
    void closedLoop(int concurrency, long warmupNanos, long measuredNanos) throws InterruptedException {
        long start = System.nanoTime();
        measuredStartNanos = start + warmupNanos;
        long end = measuredStartNanos + measuredNanos;
        CountDownLatch finished = new CountDownLatch(concurrency);
        for (int c = 0; c < concurrency; c++) {
            client.execute(new Slot(end, finished));
        }
        finished.await();
    }

    /** One of the closed loop's connections at a time: opens one, and when it has closed, the next. */
    private final class Slot implements Runnable, HandshakeClient.Listener {
        private final long end;
        private final CountDownLatch finished;

        Slot(long end, CountDownLatch finished) {
            this.end = end;
            this.finished = finished;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            if (now >= end) {
                finished.countDown();
                return;
            }
            stats.sent.increment();
            client.start(now, now >= measuredStartNanos, this);
        }

        @Override
        public void finished(HandshakeAttempt attempt) {
            record(attempt);
            client.execute(this); // never on this stack: a connect that fails at once would recurse
        }
    }

    /**
     * Starts {@code warmup} unrecorded then {@code measured} recorded connections at {@code rate} per second. Between
     * the two the warm-up's connections are awaited (up to {@link #DRAIN_NANOS}) and the schedule starts afresh, so a
     * backlog built while either JVM was still compiling is not charged to the measured ones.
     */
    void openLoop(long rate, long warmup, long measured, int maxOpen) throws InterruptedException {
        startAtRate(rate, warmup, false, maxOpen);
        long drainDeadline = System.nanoTime() + DRAIN_NANOS;
        while (stats.completed.sum() < stats.sent.sum() && System.nanoTime() < drainDeadline) {
            Thread.sleep(1);
        }
        measuredStartNanos = System.nanoTime() + LEAD_NANOS;
        startAtRate(rate, measured, true, maxOpen);
    }

    private void startAtRate(long rate, long count, boolean recorded, int maxOpen) {
        long start = recorded ? measuredStartNanos : System.nanoTime() + LEAD_NANOS;
        for (long i = 0; i < count; i++) {
            long intended = start + i * NANOS_PER_SECOND / rate;
            for (long wait = intended - System.nanoTime(); wait > 0; wait = intended - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            stats.sent.increment();
            if (client.open() >= maxOpen) {
                stats.completed.increment();
                if (recorded) {
                    attempts.increment();
                    stats.error("BACKLOG_FULL");
                }
                continue;
            }
            client.start(intended, recorded, recorder);
        }
    }

    private void record(HandshakeAttempt attempt) {
        try {
            if (attempt.measured()) {
                count(attempt);
            }
        } finally {
            stats.completed.increment(); // last: awaitCompletion reads the counts once everything is completed
        }
    }

    private void count(HandshakeAttempt attempt) {
        lastDoneNanos = System.nanoTime();
        attempts.increment();
        if (attempt.handshakeNanos() != 0) {
            stats.answered(attempt.handshakeNanos() - attempt.startNanos());
            switch (attempt.resumption()) {
                case RESUMED -> resumed.increment();
                case FULL -> full.increment();
                default -> unknown.increment();
            }
        }
        if (attempt.failure() != null) {
            stats.error(attempt.failure());
        }
    }

    /** Waits until every connection started has closed, or {@code timeoutNanos} passed. */
    void awaitCompletion(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (stats.completed.sum() < stats.sent.sum() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** When the first measured connection was due (open loop) or could start (closed loop). */
    long measuredStartNanos() {
        return measuredStartNanos;
    }

    /** When the last measured connection closed. */
    long lastDoneNanos() {
        return lastDoneNanos;
    }

    long attempts() {
        return attempts.sum();
    }

    long resumed() {
        return resumed.sum();
    }

    long full() {
        return full.sum();
    }

    long unknown() {
        return unknown.sum();
    }
}
