package io.elastikey.keyserver.ski;

import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

/**
 * Told once about every answered request, for the audit log and metrics. Called on the
 * connection's event loop: implementations only count and enqueue.
 */
@FunctionalInterface
public interface RequestLog {
    /**
     * @param caller the client, never {@code null}
     * @param method the method, or {@code null} when the request could not be decoded
     * @param spki   the key identifier as sent, or {@code null} when not decoded
     * @param error  the error answered, or {@code null} for success
     * @param nanos  time from the request's arrival to its answer
     */
    void answered(Caller caller, SkiMethod method, String spki, SkiError error, long nanos);
}
