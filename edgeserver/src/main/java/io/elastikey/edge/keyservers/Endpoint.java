// Endpoint -- one key server in the pool: its SKI client, its breaker, and the rule that judges each result.
package io.elastikey.edge.keyservers;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elastikey.protocol.ski.KeyServerClient;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiTransportException;

/**
 * A key server as the pool sees it. Every result from it, of a user request or a health probe, goes through
 * {@link #record}, which is the one place that decides what counts against a key server:
 *
 * <ul>
 *   <li>an answer, including a verdict ({@code spki not found}, {@code request denied}, ...): the server is alive,
 *       a success for the breaker, and final for the operation;
 *   <li>no answer ({@link SkiTransportException} of any kind but {@code CLIENT_CLOSED}) or {@code 503 overloaded}:
 *       a failure of this server, worth retrying on another;
 *   <li>abandoned by us (the pool closed, or the operation's deadline cancelled the attempt): neither, unless it was
 *       the breaker's trial, which then counts as failed so that the breaker is never left waiting for it.
 * </ul>
 *
 * <p>It also turns breaker changes into the pool's only log lines: WARN once when the breaker opens (with the
 * failure that opened it), INFO when it closes again. Nothing about requests is logged.
 */
final class Endpoint implements CircuitBreaker.Transitions {
    private static final Logger LOG = LoggerFactory.getLogger(KeyServerPool.class);

    final int index;
    final KeyServerEndpoint id;
    final KeyServerClient client;
    final CircuitBreaker breaker;
    private final KeyServerPoolListener listener;
    private volatile Throwable lastError;

    Endpoint(int index, KeyServerEndpoint id, KeyServerClient client, KeyServerPoolOptions options, LongSupplier clock,
            KeyServerPoolListener listener) {
        this.index = index;
        this.id = id;
        this.client = client;
        this.listener = listener;
        this.breaker = new CircuitBreaker(options.failureThreshold(), options.openDuration().toNanos(),
                options.maxOpenDuration().toNanos(), clock, this);
    }

    /**
     * Feeds one result to the breaker.
     *
     * @param failure {@code null} on success
     * @param trial   whether this was the request the breaker let through as its trial
     * @return whether the failure is this key server's, so another may be asked
     */
    boolean record(Throwable failure, boolean trial) {
        if (failure == null) {
            breaker.onSuccess(trial);
            return false;
        }
        Throwable cause = unwrap(failure);
        if (cause instanceof SkiException verdict && verdict.error() != SkiError.OVERLOADED) {
            breaker.onSuccess(trial);
            return false;
        }
        if (isAbandoned(cause)) {
            if (trial) {
                breaker.onFailure(true);
            }
            return false;
        }
        lastError = cause;
        breaker.onFailure(trial);
        return true;
    }

    EndpointStatus status() {
        Throwable error = lastError;
        return new EndpointStatus(id, breaker.state(), client.outstanding(), breaker.consecutiveFailures(),
                error == null ? null : describe(error));
    }

    @Override
    public void changed(BreakerState from, BreakerState to) {
        if (to == BreakerState.OPEN && from == BreakerState.CLOSED) {
            LOG.warn("key server {} is unavailable after {} failure(s) in a row; no traffic for {} ms: {}", id,
                    breaker.consecutiveFailures(), breaker.openNanos() / 1_000_000, describe(lastError));
        } else if (to == BreakerState.CLOSED) {
            LOG.info("key server {} is available again", id);
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("key server {}: breaker {} -> {}", id, from.label(), to.label());
        }
        listener.onStateChange(id, from, to);
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static boolean isAbandoned(Throwable cause) {
        return cause instanceof CancellationException || cause instanceof SkiTransportException transport
                && transport.kind() == SkiTransportException.Kind.CLIENT_CLOSED;
    }

    /** The exception's own message (SKI exceptions name their kind), with its cause's when it has one. */
    static String describe(Throwable error) {
        if (error == null) {
            return "no error recorded";
        }
        String text = error instanceof SkiException verdict ? verdict.error().text()
                : String.valueOf(error.getMessage());
        Throwable cause = error.getCause();
        return cause == null || cause.getMessage() == null ? text : text + ": " + cause.getMessage();
    }

    @Override
    public String toString() {
        return id.toString();
    }
}
