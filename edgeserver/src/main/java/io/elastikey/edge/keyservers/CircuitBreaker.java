// CircuitBreaker -- one endpoint's breaker: closed, open after N failures in a row, one trial when the wait is over.
package io.elastikey.edge.keyservers;

import java.util.function.LongSupplier;

/**
 * Keeps traffic away from a key server that keeps failing, and finds out cheaply when it is back.
 *
 * <ul>
 *   <li>{@code CLOSED}: traffic flows; {@code threshold} failures in a row (no success between them) open it.
 *   <li>{@code OPEN}: no traffic for the open duration. Once it has passed, {@link #tryTrial()} grants one caller the
 *       trial and moves to {@code HALF_OPEN}.
 *   <li>{@code HALF_OPEN}: the trial is out and nobody else gets through. Its success closes the breaker and resets
 *       the open duration; its failure opens it again for twice as long, up to the maximum. Only the trial's own
 *       result counts here: callers say whether a result is the trial's.
 * </ul>
 *
 * <p>Results of requests sent before the breaker opened may still arrive while it is open or half-open; they are
 * stale and change nothing but the failure count shown in status. A success in {@code CLOSED} resets the count.
 *
 * <p>Thread-safe. The per-request questions ({@link #isClosed()}, a success while closed with no failures counted)
 * are volatile reads; transitions and failures take the monitor for a few instructions. The {@link Transitions}
 * callback runs after the monitor is released, on the thread that caused the change. The clock is injected
 * ({@link System#nanoTime()} in production) so tests can move time by hand.
 */
final class CircuitBreaker {
    /** Told of every state change, outside the breaker's lock. */
    @FunctionalInterface
    interface Transitions {
        void changed(BreakerState from, BreakerState to);
    }

    private final int threshold;
    private final long baseOpenNanos;
    private final long maxOpenNanos;
    private final LongSupplier clock;
    private final Transitions transitions;

    private volatile BreakerState state = BreakerState.CLOSED;
    private volatile int consecutiveFailures;
    /** Guarded by this: how long the current or next open period lasts, and when the current one ends. */
    private long openNanos;
    private long openUntil;

    CircuitBreaker(int threshold, long baseOpenNanos, long maxOpenNanos, LongSupplier clock,
            Transitions transitions) {
        if (threshold < 1 || baseOpenNanos <= 0 || maxOpenNanos < baseOpenNanos) {
            throw new IllegalArgumentException("threshold " + threshold + ", open " + baseOpenNanos + " ns, max "
                    + maxOpenNanos + " ns");
        }
        this.threshold = threshold;
        this.baseOpenNanos = baseOpenNanos;
        this.maxOpenNanos = maxOpenNanos;
        this.clock = clock;
        this.transitions = transitions;
        this.openNanos = baseOpenNanos;
    }

    /** The state now; an open breaker whose wait is over still reads {@code OPEN} until someone takes the trial. */
    BreakerState state() {
        return state;
    }

    boolean isClosed() {
        return state == BreakerState.CLOSED;
    }

    int consecutiveFailures() {
        return consecutiveFailures;
    }

    /** The length of the current open period (the next one, while closed). */
    synchronized long openNanos() {
        return openNanos;
    }

    /** Nanoseconds until an open breaker grants its trial: 0 when due or when not open. */
    synchronized long nanosUntilTrial() {
        return state == BreakerState.OPEN ? Math.max(0, openUntil - clock.getAsLong()) : 0;
    }

    /**
     * Grants the caller the trial if the breaker is open and its wait is over, moving it to {@code HALF_OPEN}. The
     * caller must then report the result with {@code trial = true}.
     */
    boolean tryTrial() {
        if (state != BreakerState.OPEN) {
            return false;
        }
        synchronized (this) {
            if (state != BreakerState.OPEN || clock.getAsLong() - openUntil < 0) {
                return false;
            }
            state = BreakerState.HALF_OPEN;
        }
        transitions.changed(BreakerState.OPEN, BreakerState.HALF_OPEN);
        return true;
    }

    /**
     * Grants the caller the trial if the breaker is open, whether or not its wait is over: for the health check, whose
     * probe costs the server nothing worth sparing, so that a server that came back is found within one probe
     * interval rather than after an open period that has doubled up to its maximum while it was down.
     */
    boolean tryTrialNow() {
        if (state != BreakerState.OPEN) {
            return false;
        }
        synchronized (this) {
            if (state != BreakerState.OPEN) {
                return false;
            }
            state = BreakerState.HALF_OPEN;
        }
        transitions.changed(BreakerState.OPEN, BreakerState.HALF_OPEN);
        return true;
    }

    /** The endpoint answered. {@code trial}: this was the request {@link #tryTrial()} let through. */
    void onSuccess(boolean trial) {
        if (!trial && consecutiveFailures == 0) {
            return;
        }
        BreakerState from;
        synchronized (this) {
            from = state;
            if (trial && from == BreakerState.HALF_OPEN) {
                state = BreakerState.CLOSED;
                openNanos = baseOpenNanos;
            } else if (trial || from != BreakerState.CLOSED) {
                return;
            }
            consecutiveFailures = 0;
        }
        if (from != BreakerState.CLOSED) {
            transitions.changed(from, BreakerState.CLOSED);
        }
    }

    /** The endpoint failed. {@code trial}: this was the request {@link #tryTrial()} let through. */
    void onFailure(boolean trial) {
        BreakerState from;
        synchronized (this) {
            from = state;
            consecutiveFailures++;
            if (trial && from == BreakerState.HALF_OPEN) {
                openNanos = Math.min(maxOpenNanos, openNanos * 2);
            } else if (trial || from != BreakerState.CLOSED || consecutiveFailures < threshold) {
                return;
            }
            state = BreakerState.OPEN;
            openUntil = clock.getAsLong() + openNanos;
        }
        transitions.changed(from, BreakerState.OPEN);
    }

    @Override
    public String toString() {
        return "CircuitBreaker[" + state.label() + ", " + consecutiveFailures + " failure(s) in a row]";
    }
}
