// KeyServerPoolListener -- what the pool tells metrics: outcomes, retries, breaker changes. Default no-ops.
package io.elastikey.edge.keyservers;

import io.elastikey.protocol.ski.SkiMethod;

/**
 * Events of a {@link KeyServerPool}, for the edge's metrics. Every method is a no-op by default and {@link #NONE}
 * implements none, so the pool calls its listener without null checks. Methods run on whatever thread completed the
 * event, usually an event loop: they must be quick and must not block. Nothing here carries request data.
 *
 * <p>Per operation exactly one of {@link #onSuccess} and {@link #onFailure} is called, preceded by one
 * {@link #onRetry} per attempt that failed and was followed by another: an operation made
 * {@code 1 + retries} attempts. {@code onSuccess} and {@code onFailure} are called just after the operation's future
 * completed, so the waiting handshake goes first; {@code onRetry} before the next attempt is sent.
 */
public interface KeyServerPoolListener {
    KeyServerPoolListener NONE = new KeyServerPoolListener() { };

    /** {@code endpoint} answered; {@code nanos} from {@code execute}, retries included. */
    default void onSuccess(KeyServerEndpoint endpoint, SkiMethod method, long nanos) {
    }

    /**
     * The operation failed for good, {@code nanos} after {@code execute}: a verdict of the key server (an
     * {@link io.elastikey.protocol.ski.SkiException}), the last attempt's transport failure, the deadline, a closed
     * pool, or a {@link NoKeyServerException}, in which case {@code endpoint} is {@code null} (nothing was sent).
     */
    default void onFailure(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure, long nanos) {
    }

    /** An attempt on {@code endpoint} failed in a way that counts against it; the operation tries another. */
    default void onRetry(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure) {
    }

    /** {@code endpoint}'s breaker moved from {@code from} to {@code to}. */
    default void onStateChange(KeyServerEndpoint endpoint, BreakerState from, BreakerState to) {
    }
}
