// Operation -- one execute() of the pool: its attempts one after another, each on another key server, to a deadline.
package io.elastikey.edge.keyservers;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.protocol.ski.SkiTransportException;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * The state of one operation: which endpoints it tried, how many attempts it made, when its deadline passes. It is
 * its own completion callback ({@link #accept}) and its own deadline timer ({@link #run}), so an attempt costs the
 * client's future and one {@code whenComplete} stage, nothing more.
 *
 * <p>Attempts run one after another, never two at once: the next starts from the callback of the last, after the
 * last's result has been fed to its endpoint's breaker. A retry goes to an endpoint not yet tried if one is
 * available, else to any available one but the last. The deadline needs a timer only for an attempt that could
 * outlast it (its timeout is longer than the time left); with the defaults (3 x 500 ms within 2 s) none does, and the
 * client's own request timeout ends every attempt. When the timer fires it fails the operation with
 * {@code TIMEOUT} and cancels the attempt, which resets its HTTP/2 stream.
 *
 * <p>Thread-safety: the fields are written by one attempt's thread before the next attempt is sent, and read by that
 * attempt's callback; the future's completion orders the two. The timer may race with a callback: whichever
 * completes {@link #result} first wins, and the other changes nothing.
 */
final class Operation implements BiConsumer<byte[], Throwable>, Runnable {
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final KeyServerPool pool;
    private final SkiRequest request;
    private final long started;
    private int attempts;
    private long tried;
    private Endpoint endpoint;
    private boolean trial;
    private volatile CompletableFuture<byte[]> inFlight;
    private volatile ScheduledFuture<?> timer;

    Operation(KeyServerPool pool, SkiRequest request) {
        this.pool = pool;
        this.request = request;
        this.started = System.nanoTime();
    }

    /** Sends the first attempt, or fails with {@link NoKeyServerException} when no endpoint is available. */
    void start() {
        if (pool.isClosed()) {
            fail(KeyServerPool.closedException());
            return;
        }
        Endpoint first = choose();
        if (first == null) {
            fail(new NoKeyServerException(pool.status()));
        } else {
            send(first);
        }
    }

    /** The result of the attempt in flight. */
    @Override
    public void accept(byte[] output, Throwable failure) {
        ScheduledFuture<?> deadlineTimer = timer;
        if (deadlineTimer != null) {
            timer = null;
            deadlineTimer.cancel(false);
        }
        Endpoint last = endpoint;
        boolean endpointFailed = last.record(failure, trial);
        if (failure == null) {
            if (result.complete(output)) {
                pool.listener().onSuccess(last.id, request.method(), System.nanoTime() - started);
            }
            return;
        }
        if (result.isDone()) {
            return;
        }
        Throwable cause = Endpoint.unwrap(failure);
        if (endpointFailed && attempts < pool.options().maxAttempts() && !pool.isClosed()
                && System.nanoTime() - started < pool.deadlineNanos()) {
            Endpoint next = choose();
            if (next != null) {
                pool.listener().onRetry(last.id, request.method(), cause);
                send(next);
                return;
            }
        }
        fail(cause);
    }

    /** The deadline passed while an attempt that could outlast it was in flight. */
    @Override
    public void run() {
        SkiTransportException expired = new SkiTransportException(SkiTransportException.Kind.TIMEOUT,
                "no answer within the deadline of " + pool.options().deadline().toMillis() + " ms (" + attempts
                        + " attempt(s))");
        if (fail(expired)) {
            CompletableFuture<byte[]> attempt = inFlight;
            if (attempt != null) {
                attempt.cancel(false);
            }
        }
    }

    /** An available endpoint for the next attempt, or {@code null}; sets {@link #trial}. */
    private Endpoint choose() {
        Endpoint next = pick(tried);
        if (next == null && endpoint != null) {
            next = pick(1L << endpoint.index);
        }
        return next;
    }

    private Endpoint pick(long excluded) {
        Endpoint next = pool.pickClosed(excluded);
        trial = false;
        if (next == null) {
            next = pool.pickTrial(excluded);
            trial = next != null;
        }
        return next;
    }

    private void send(Endpoint target) {
        endpoint = target;
        attempts++;
        tried |= 1L << target.index;
        long left = pool.deadlineNanos() - (System.nanoTime() - started);
        CompletableFuture<byte[]> attempt = target.client.execute(request);
        inFlight = attempt;
        if (left < pool.attemptTimeoutNanos() && !attempt.isDone()) {
            timer = pool.timerExecutor().schedule(this, Math.max(0, left), TimeUnit.NANOSECONDS);
        }
        attempt.whenComplete(this);
    }

    private boolean fail(Throwable cause) {
        if (!result.completeExceptionally(cause)) {
            return false;
        }
        Endpoint last = endpoint;
        pool.listener().onFailure(last == null ? null : last.id, request.method(), cause,
                System.nanoTime() - started);
        return true;
    }
}
