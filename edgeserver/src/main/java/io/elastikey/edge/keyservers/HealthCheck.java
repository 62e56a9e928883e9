// HealthCheck -- a periodic cheap SKI probe per endpoint, on the shared event loops, that feeds the breaker.
package io.elastikey.edge.keyservers;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Probes one endpoint so that its breaker follows the server even without user traffic: an idle dead server is
 * opened, an open one that came back is closed without a user request having to risk the trial.
 *
 * <p>The probe is a {@code SIGN} for a key that cannot exist (64 zero digits): any answer, {@code spki not found} or
 * {@code request denied} included, proves the server alive through TLS, HTTP and its request handling; no answer or
 * {@code 503 overloaded} is a failure (see {@link Endpoint#record}). It costs the server a lookup, no crypto.
 *
 * <p>The rule with the breaker: a closed endpoint is probed every interval and the result counts like any request's.
 * An open endpoint is probed every interval too, whatever is left of its open duration: the probe takes the
 * half-open trial ({@link CircuitBreaker#tryTrialNow}) unless a user request took it first (then the probe waits for
 * the next round). The open duration (which doubles while trials fail, up to its maximum) only keeps user requests
 * away. So a returning server is found within one interval: before, a key server down for a while was probed only
 * when its grown open duration ended, up to 30 s after it was back, and a failure of the other key server meanwhile
 * failed handshakes although one was ready (found by the chaos run, perf/bin/chaos). A probe is one request with the
 * attempt timeout, so it holds the trial for at most that long; meanwhile user requests go to closed endpoints, or
 * fail at once when there are none.
 *
 * <p>Probes run one at a time per endpoint: the next is scheduled when the last has completed, on the same executor.
 * The first runs at once, which also opens the connections before the first handshake needs them.
 */
final class HealthCheck implements Runnable, BiConsumer<byte[], Throwable> {
    static final SkiRequest PROBE = SkiRequest.sign("0".repeat(64), SignatureScheme.ECDSA_SECP256R1_SHA256,
            new byte[] {0});
    private static final long MIN_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Endpoint endpoint;
    private final EventExecutor executor;
    private final long intervalNanos;
    private volatile boolean stopped;
    private volatile ScheduledFuture<?> next;
    /** Whether the probe out is the breaker's trial; written before it is sent, read when it completes. */
    private boolean trial;

    HealthCheck(Endpoint endpoint, EventExecutor executor, long intervalNanos) {
        this.endpoint = endpoint;
        this.executor = executor;
        this.intervalNanos = intervalNanos;
    }

    void start() {
        schedule(0);
    }

    /** Cancels the next probe; one already out completes and is not followed by another. */
    void stop() {
        stopped = true;
        ScheduledFuture<?> pending = next;
        if (pending != null) {
            pending.cancel(false);
        }
    }

    @Override
    public void run() {
        if (stopped) {
            return;
        }
        CircuitBreaker breaker = endpoint.breaker;
        if (breaker.isClosed()) {
            trial = false;
        } else if (breaker.tryTrialNow()) {
            trial = true;
        } else {
            schedule(delay());
            return;
        }
        endpoint.client.execute(PROBE).whenComplete(this);
    }

    /** The probe's result. */
    @Override
    public void accept(byte[] output, Throwable failure) {
        endpoint.record(failure, trial);
        schedule(delay());
    }

    private long delay() {
        return Math.max(MIN_DELAY_NANOS, intervalNanos);
    }

    private void schedule(long delayNanos) {
        if (stopped) {
            return;
        }
        try {
            next = executor.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            stopped = true; // the shared event loops are shutting down; so is the edge
        }
    }
}
