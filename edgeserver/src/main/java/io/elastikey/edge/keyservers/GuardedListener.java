// GuardedListener -- wraps the caller's listener so that an exception in metrics code cannot break an operation.
package io.elastikey.edge.keyservers;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elastikey.protocol.ski.SkiMethod;

/**
 * The pool calls its listener in the middle of its own work: between an attempt's result and the next attempt,
 * inside a breaker change, before a health probe is rescheduled. An exception escaping there would leave an
 * operation never completed or an endpoint never probed again, so every call goes through here and a throwing
 * listener costs a log line (at most one a minute), never a handshake. A try block costs nothing when nothing throws.
 */
final class GuardedListener implements KeyServerPoolListener {
    private static final Logger LOG = LoggerFactory.getLogger(KeyServerPool.class);
    private static final long LOG_EVERY_NANOS = 60_000_000_000L;

    private final KeyServerPoolListener delegate;
    private volatile long lastLogged = System.nanoTime() - LOG_EVERY_NANOS;

    private GuardedListener(KeyServerPoolListener delegate) {
        this.delegate = delegate;
    }

    static KeyServerPoolListener of(KeyServerPoolListener listener) {
        return listener == NONE || listener instanceof GuardedListener ? listener : new GuardedListener(listener);
    }

    @Override
    public void onSuccess(KeyServerEndpoint endpoint, SkiMethod method, long nanos) {
        try {
            delegate.onSuccess(endpoint, method, nanos);
        } catch (RuntimeException e) {
            failed("onSuccess", e);
        }
    }

    @Override
    public void onFailure(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure, long nanos) {
        try {
            delegate.onFailure(endpoint, method, failure, nanos);
        } catch (RuntimeException e) {
            failed("onFailure", e);
        }
    }

    @Override
    public void onRetry(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure) {
        try {
            delegate.onRetry(endpoint, method, failure);
        } catch (RuntimeException e) {
            failed("onRetry", e);
        }
    }

    @Override
    public void onStateChange(KeyServerEndpoint endpoint, BreakerState from, BreakerState to) {
        try {
            delegate.onStateChange(endpoint, from, to);
        } catch (RuntimeException e) {
            failed("onStateChange", e);
        }
    }

    private void failed(String method, RuntimeException e) {
        long now = System.nanoTime();
        long last = lastLogged;
        if (now - last >= LOG_EVERY_NANOS) {
            lastLogged = now;
            LOG.warn("the key-server pool's listener threw from {}; ignored", method, e);
        }
    }
}
