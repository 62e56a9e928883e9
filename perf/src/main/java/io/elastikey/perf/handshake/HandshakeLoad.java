// HandshakeLoad -- the handshake load generator as a library: a peak measurement, then a long open-loop run read per second.
package io.elastikey.perf.handshake;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.elastikey.perf.ski.LoadStats;

/**
 * What {@code ./elastikey loadgen handshake} does, for tools that run the load for minutes and need to see each
 * second as it passes (the soak and chaos runs): every connection is new, a full TLS 1.3 handshake (the client keeps
 * no sessions), then optionally one HTTP/1.1 GET, then close. One {@link HandshakeClient} serves every phase; each
 * phase ({@link #closedLoopRate}, {@link #openLoop}) counts into a fresh {@link LoadStats}, which
 * {@link #second()} reads: the answers, failures and latencies since the previous call.
 *
 * <p>A connection counts as answered once its handshake completed and (with a request path) its response was read
 * with a 2xx status; anything else is a failure by kind ({@link FailureKinds}). Failures are counted when the
 * connection ends, which is at most the timeout after it started. Latency is the handshake's, from the intended start
 * in open loop (coordinated omission corrected). Not thread-safe beyond one phase at a time and one reader of
 * {@link #second()}.
 */
public final class HandshakeLoad implements AutoCloseable {
    /** Open connections at most before a due one is refused as {@code BACKLOG_FULL}. */
    private static final int MAX_OPEN = 10_000;

    private final HandshakeClient client;
    private final String description;
    private volatile LoadStats stats = new LoadStats();
    private long lastAnswered;
    private final Map<String, Long> lastErrors = new HashMap<>();

    private HandshakeLoad(HandshakeClient client, String description) {
        this.client = client;
        this.description = description;
    }

    /**
     * @param caBundle      the CA the server's chain must end at (checked once per distinct chain)
     * @param requestPath   a path to GET after each handshake, or null for the handshake alone
     * @param timeoutMillis for the connect, the handshake and the GET, each
     */
    public static HandshakeLoad open(InetSocketAddress target, String serverName, Path caBundle, String requestPath,
                                     int timeoutMillis, int threads) throws IOException {
        HandshakeTls tls = HandshakeTls.build(HandshakeTls.TLS_1_3, null, caBundle, false, 256);
        HandshakeClient client = new HandshakeClient(tls, target, List.of(serverName), requestPath, timeoutMillis,
                threads);
        String description = String.format("new connection, full TLS 1.3 handshake%s, close; client %s, %s",
                requestPath != null ? " and GET " + requestPath : "", tls.description(), client.transport());
        return new HandshakeLoad(client, description);
    }

    /** What one unit of load is, and the client's TLS and transport. */
    public String description() {
        return description;
    }

    /**
     * Closed loop with {@code concurrency} connections under way: {@code warmup} unrecorded, then answers per second
     * over {@code measured}. Blocks until every connection has ended.
     */
    public Phase closedLoopRate(int concurrency, Duration warmup, Duration measured) throws InterruptedException {
        HandshakeRun run = newPhase();
        run.closedLoop(concurrency, warmup.toNanos(), measured.toNanos());
        run.awaitCompletion(TimeUnit.MILLISECONDS.toNanos(3L * client.timeoutMillis() + 1000L));
        LoadStats s = stats;
        return new Phase(s.answered.sum(), s.errors(), s.answered.sum() / (measured.toNanos() / 1e9));
    }

    /**
     * Opens {@code rate} connections per second for {@code duration}, every one recorded, then waits for the last
     * to end. Blocks; read {@link #second()} from another thread meanwhile.
     */
    public Phase openLoop(long rate, Duration duration) throws InterruptedException {
        HandshakeRun run = newPhase();
        run.openLoop(rate, 0, rate * duration.toSeconds(), MAX_OPEN);
        run.awaitCompletion(TimeUnit.MILLISECONDS.toNanos(3L * client.timeoutMillis() + 1000L));
        LoadStats s = stats;
        return new Phase(s.answered.sum(), s.errors(), s.answered.sum() / (double) duration.toSeconds());
    }

    private HandshakeRun newPhase() {
        synchronized (this) {
            stats = new LoadStats();
            lastAnswered = 0;
            lastErrors.clear();
        }
        return new HandshakeRun(client, stats);
    }

    /** What happened since the previous call (or the phase's start): one reader thread. */
    public synchronized Second second() {
        LoadStats s = stats;
        long answered = s.answered.sum();
        Map<String, Long> errors = new TreeMap<>();
        s.errors().forEach((kind, count) -> {
            long added = count - lastErrors.getOrDefault(kind, 0L);
            if (added > 0) {
                errors.put(kind, added);
            }
            lastErrors.put(kind, count);
        });
        Histogram interval = s.interval();
        Second second = new Second(answered - lastAnswered, errors, interval.getTotalCount() > 0
                ? interval.getValueAtPercentile(50) / 1e6 : Double.NaN, interval.getTotalCount() > 0
                ? interval.getValueAtPercentile(99) / 1e6 : Double.NaN, interval.getTotalCount() > 0
                ? interval.getMaxValue() / 1e6 : Double.NaN, client.open());
        lastAnswered = answered;
        return second;
    }

    @Override
    public void close() {
        client.close();
    }

    /** A phase's totals: answers, failures by kind, answers per second over its measured time. */
    public record Phase(long answered, Map<String, Long> errors, double rate) {
        public long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * One interval of a phase.
     *
     * @param answered connections answered in it
     * @param errors   connections failed in it, by kind (only kinds that occurred)
     * @param p50Ms    median handshake latency of the answered ones, NaN when none
     * @param p99Ms    99th percentile, NaN when none
     * @param maxMs    the slowest, NaN when none
     * @param open     connections open at the end of it
     */
    public record Second(long answered, Map<String, Long> errors, double p50Ms, double p99Ms, double maxMs,
                         int open) {
        public long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
