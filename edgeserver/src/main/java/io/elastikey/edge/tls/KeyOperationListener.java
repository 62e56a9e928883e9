package io.elastikey.edge.tls;

/**
 * What the edge's metrics and logs learn from each private-key operation of a handshake. Methods are no-ops
 * by default, so a listener implements only what it uses; they run on whatever thread completed the
 * operation and must not block.
 */
public interface KeyOperationListener {
    KeyOperationListener NONE = new KeyOperationListener() { };

    /** The two operations a handshake can need. */
    enum Kind { SIGN, DECRYPT }

    /** The key server answered, after {@code nanos} including any retries. */
    default void succeeded(Kind kind, long nanos) {
    }

    /** No answer could be had: the handshake fails with an alert. */
    default void failed(Kind kind, long nanos, Throwable cause) {
    }
}
