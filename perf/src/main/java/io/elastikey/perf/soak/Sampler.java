// Sampler -- once a second: the load's last second, each process's RSS and fds, into the timeline and the progress line.
package io.elastikey.perf.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.elastikey.perf.handshake.HandshakeLoad;

/**
 * A daemon thread woken on whole seconds from its start (so drift does not pile up). Each wake reads
 * {@link HandshakeLoad#second()} and, for each role, the process that holds it now (chaos replaces a killed key
 * server with a new process under the same role), and appends a {@link Timeline.Row}. Every {@code every}-th second,
 * and every second with a failure, it prints a progress line; the caller's own lines (chaos events) go to the same
 * stream.
 */
final class Sampler implements AutoCloseable {
    private final HandshakeLoad load;
    private final long offered;
    private final Map<String, Supplier<SuiteProcess>> roles;
    private final Timeline timeline;
    private final PrintStream out;
    private final int every;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile long startedNanos;
    private volatile IOException failure;

    Sampler(HandshakeLoad load, long offered, Map<String, Supplier<SuiteProcess>> roles, Timeline timeline,
            PrintStream out, int every) {
        this.load = load;
        this.offered = offered;
        this.roles = roles;
        this.timeline = timeline;
        this.out = out;
        this.every = Math.max(1, every);
        this.thread = new Thread(this::run, "soak-sampler");
        thread.setDaemon(true);
    }

    Sampler start() {
        startedNanos = System.nanoTime();
        thread.start();
        return this;
    }

    /** The second (from the sampler's start) that is under way now; -1 before the start. */
    long currentSecond() {
        long started = startedNanos;
        return started == 0 ? -1 : (System.nanoTime() - started) / 1_000_000_000L;
    }

    private void run() {
        try {
            for (long second = 1; !stopped; second++) {
                long wake = startedNanos + TimeUnit.SECONDS.toNanos(second);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, wake - System.nanoTime()));
                sample(second - 1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sample(long second) {
        HandshakeLoad.Second s = load.second();
        Map<String, Long> rss = new LinkedHashMap<>();
        Map<String, Integer> fds = new LinkedHashMap<>();
        roles.forEach((role, process) -> {
            SuiteProcess p = process.get();
            rss.put(role, p == null ? -1 : p.rssKib());
            fds.put(role, p == null ? -1 : p.openFds());
        });
        Timeline.Row row = new Timeline.Row(second, offered, s.answered(), s.errors(), s.p50Ms(), s.p99Ms(),
                s.maxMs(), s.open(), rss, fds);
        try {
            timeline.add(row);
        } catch (IOException e) {
            failure = e;
        }
        if ((second + 1) % every == 0 || row.errorCount() > 0) {
            out.println(line(row));
        }
    }

    static String line(Timeline.Row row) {
        StringBuilder line = new StringBuilder(String.format("%5ds  answers %,6d/s  failed %,d%s", row.second() + 1,
                row.answered(), row.errorCount(), row.errorCount() > 0 ? " " + row.errors() : ""));
        if (!Double.isNaN(row.p99Ms())) {
            line.append(String.format("  p50 %.1f  p99 %.1f ms", row.p50Ms(), row.p99Ms()));
        }
        line.append("  RSS MiB");
        row.rssKib().forEach((role, kib) -> line.append(' ').append(role).append(' ')
                .append(kib < 0 ? "-" : String.format("%.0f", kib / 1024.0)));
        line.append("  fds");
        row.fds().forEach((role, n) -> line.append(' ').append(n < 0 ? "-" : n));
        return line.toString();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
        if (failure != null) {
            throw failure;
        }
    }
}
