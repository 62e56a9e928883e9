// ProgressReporter -- one line a second while a load run goes: rates, errors, interval latency, requests in flight.
package io.elastikey.perf.ski;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import org.HdrHistogram.Histogram;

/**
 * A daemon thread that wakes once a second and prints what happened in that second, so a long run shows at once
 * when it goes wrong (errors, a growing number in flight, latency climbing) instead of only at the end. It is the only
 * reader of the run's interval histograms while it runs; {@link #close()} stops it before the final report reads.
 */
public final class ProgressReporter implements AutoCloseable {
    private final LoadStats stats;
    private final IntSupplier outstanding;
    private final PrintStream out;
    private final LongSupplier measuredStartNanos;
    private final Thread thread;
    private final List<Long> completedPerSecond = new CopyOnWriteArrayList<>();
    private volatile long startedNanos;
    private volatile boolean stopped;

    public ProgressReporter(LoadStats stats, IntSupplier outstanding, PrintStream out,
                            LongSupplier measuredStartNanos) {
        this.stats = stats;
        this.outstanding = outstanding;
        this.out = out;
        this.measuredStartNanos = measuredStartNanos;
        this.thread = new Thread(this::run, "ski-progress");
        thread.setDaemon(true);
    }

    public ProgressReporter start() {
        startedNanos = System.nanoTime();
        thread.start();
        return this;
    }

    /** Answers and errors in each second since {@link #start}, warm-up included: how a run ramped up. */
    public List<Long> completedPerSecond() {
        return List.copyOf(completedPerSecond);
    }

    /** When the first of those seconds began ({@link System#nanoTime}). */
    public long startedNanos() {
        return startedNanos;
    }

    private void run() {
        long started = startedNanos;
        long sent = 0;
        long completed = 0;
        long errors = 0;
        try {
            for (long second = 1; !stopped; second++) {
                long wake = started + TimeUnit.SECONDS.toNanos(second);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, wake - System.nanoTime()));
                long nowSent = stats.sent.sum();
                long nowCompleted = stats.completed.sum();
                long nowErrors = stats.errorCount();
                out.println(line(second, nowSent - sent, nowCompleted - completed, nowErrors - errors));
                completedPerSecond.add(nowCompleted - completed);
                sent = nowSent;
                completed = nowCompleted;
                errors = nowErrors;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String line(long second, long sent, long completed, long errors) {
        boolean warmingUp = System.nanoTime() < measuredStartNanos.getAsLong();
        StringBuilder line = new StringBuilder(String.format("%5ds %s sent %,8d/s  done %,8d/s  errors %,d", second,
                warmingUp ? "warm-up" : "       ", sent, completed, errors));
        Histogram interval = stats.interval();
        if (interval.getTotalCount() > 0) {
            line.append(String.format("  p50 %.3f  p99 %.3f  max %.3f ms", millis(interval.getValueAtPercentile(50)),
                    millis(interval.getValueAtPercentile(99)), millis(interval.getMaxValue())));
        }
        return line.append(String.format("  in flight %,d", outstanding.getAsInt())).toString();
    }

    @Override
    public void close() throws InterruptedException {
        // The flag as well as the interrupt: HdrHistogram's interval swap swallows an interrupt that lands in it.
        stopped = true;
        thread.interrupt();
        thread.join();
    }

    static double millis(long nanos) {
        return nanos / 1e6;
    }
}
