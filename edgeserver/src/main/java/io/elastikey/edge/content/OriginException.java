// OriginException -- why the origin gave no usable answer, and the status the client gets for it.
package io.elastikey.edge.content;

/**
 * The failure of an {@link OriginClient#fetch}: 502 when the origin refused, dropped the connection, or sent a
 * malformed or oversized answer; 503 when this loop's connections and waiting line are full; 504 when the answer
 * did not come in time. The message is one line meant for the client's text body and the log. No stack trace is
 * taken: with the origin down every request fails the same way, and the cause says where.
 */
public final class OriginException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    OriginException(int status, String message, Throwable cause) {
        super(message, cause, false, false);
        this.status = status;
    }

    OriginException(int status, String message) {
        this(status, message, null);
    }

    /** The HTTP status to answer the client with: 502, 503 or 504. */
    public int status() {
        return status;
    }
}
