// LoadStats -- what a load run counts, written from many event-loop threads at once and read once a second.
package io.elastikey.perf.ski;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiTransportException;

/**
 * Latencies go into an HdrHistogram {@link Recorder}, which writers update without locks and one reader swaps out
 * as interval histograms (the progress line) that it also adds up into the run's total. Which requests count is the
 * caller's choice (the warm-up does not); {@link #completed} counts every completion, for progress during warm-up.
 *
 * <p>The histogram holds the latency of every request the server answered, successes and SKI errors alike. Transport
 * failures are only counted by kind: a backlog refusal takes no time, a timeout takes exactly the timeout, and
 * neither is a measurement of the server; a run with any of them is reported as such.
 */
public final class LoadStats {
    /** Latencies above ten minutes are recorded as ten minutes. */
    static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final Recorder recorder = new Recorder(HIGHEST_NANOS, 3);
    private final Histogram total = new Histogram(HIGHEST_NANOS, 3);
    private Histogram recycled;
    public final LongAdder sent = new LongAdder();
    public final LongAdder completed = new LongAdder();
    public final LongAdder answered = new LongAdder();
    final LongAdder verified = new LongAdder();
    final LongAdder verifyFailures = new LongAdder();
    final LongAdder verifySkipped = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    /** A measured request that got its output. */
    public void answered(long latencyNanos) {
        answered.increment();
        record(latencyNanos);
    }

    /** A measured request that failed: an SKI error (timed) or anything else (counted by kind). */
    void failed(Throwable failure, long latencyNanos) {
        Throwable cause = unwrap(failure);
        if (cause instanceof SkiException ski) {
            record(latencyNanos);
            count(ski.error().text() + " (" + ski.error().status() + ")");
        } else if (cause instanceof SkiTransportException transport) {
            count(transport.kind().name());
        } else {
            count(cause.getClass().getSimpleName());
        }
    }

    void verification(boolean right) {
        verified.increment();
        if (!right) {
            verifyFailures.increment();
        }
    }

    /** The latencies recorded since the last call, also added to {@link #total()}. One reader thread at a time. */
    public synchronized Histogram interval() {
        Histogram interval = recorder.getIntervalHistogram(recycled);
        total.add(interval);
        recycled = interval;
        return interval;
    }

    /** Every latency taken in by {@link #interval()} so far. */
    public synchronized Histogram total() {
        return total.copy();
    }

    /** Errors by kind, sorted by name. */
    public Map<String, Long> errors() {
        Map<String, Long> sorted = new TreeMap<>();
        errors.forEach((kind, count) -> sorted.put(kind, count.sum()));
        return sorted;
    }

    public long errorCount() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** A failure counted under {@code kind} alone, untimed (the handshake load generator names its own kinds). */
    public void error(String kind) {
        count(kind);
    }

    private void record(long latencyNanos) {
        recorder.recordValue(Math.max(0, Math.min(HIGHEST_NANOS, latencyNanos)));
    }

    private void count(String kind) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
