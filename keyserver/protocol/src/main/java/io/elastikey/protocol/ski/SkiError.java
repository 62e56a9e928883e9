package io.elastikey.protocol.ski;

/**
 * Every error an SKI server answers, with its HTTP status and the exact text existing
 * clients match on (PROTOCOLS.md section 1). Nothing else is ever put in an error body, so
 * an answer never tells a client more than these words.
 */
public enum SkiError {
    MALFORMED_REQUEST(400, "malformed request"),
    REQUEST_DENIED(403, "request denied"),
    SPKI_NOT_FOUND(404, "spki not found"),
    UNSPECIFIED_ERROR(500, "unspecified error"),
    OVERLOADED(503, "overloaded");

    private static final SkiError[] VALUES = values();

    private final int status;
    private final String text;

    SkiError(int status, String text) {
        this.status = status;
        this.text = text;
    }

    public int status() {
        return status;
    }

    public String text() {
        return text;
    }

    /**
     * The error answered with this HTTP status, or {@code null}. Each status belongs to one error, so a client can
     * still name an error whose body was lost or mangled by a proxy.
     */
    public static SkiError fromStatus(int status) {
        for (SkiError error : VALUES) {
            if (error.status == status) {
                return error;
            }
        }
        return null;
    }

    /** The error with this text, or {@code null}. */
    public static SkiError fromText(String text) {
        for (SkiError error : VALUES) {
            if (error.text.equals(text)) {
                return error;
            }
        }
        return null;
    }
}
