// SkiTransportException -- an SKI request that got no SKI answer: the transport, a timeout or the client failed it.
package io.elastikey.protocol.ski;

import java.io.IOException;

/**
 * A request that ended without an answer in the protocol's terms, as opposed to a {@link SkiException}, which is the
 * server's own verdict. The difference matters to a caller: an edge server may retry a transport failure on another
 * key server, but asking elsewhere after {@code spki not found} or {@code request denied} is pointless. The
 * {@link Kind} says which failure it was, for retry decisions and for the load generator's error counts.
 */
public final class SkiTransportException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, coarsely enough to count and to decide on a retry. */
    public enum Kind {
        /** No connection could be made: refused, unreachable, TLS handshake failed, or the connect timeout passed. */
        CONNECT_FAILED,
        /** The connection (or the HTTP/2 stream) closed or was reset before the answer arrived. */
        CONNECTION_CLOSED,
        /** The request timeout passed before the answer arrived, whether the request was sent or still waiting. */
        TIMEOUT,
        /** The client already held its maximum of outstanding requests; this one was never sent. */
        BACKLOG_FULL,
        /** An answer arrived that is neither an SKI output nor an SKI error (wrong status, body or size). */
        BAD_ANSWER,
        /** The client was closed before or while the request ran. */
        CLIENT_CLOSED
    }

    private final Kind kind;

    public SkiTransportException(Kind kind, String message) {
        this(kind, message, null);
    }

    public SkiTransportException(Kind kind, String message, Throwable cause) {
        super(kind + ": " + message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /**
     * No stack trace: these are made on event-loop threads, where the trace says nothing about the caller, and by the
     * thousand per second when a server is down. The cause, when there is one, keeps its own trace.
     */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
