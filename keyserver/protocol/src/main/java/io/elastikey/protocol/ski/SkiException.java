package io.elastikey.protocol.ski;

/**
 * An SKI operation that ended in one of the protocol's errors. The message is only ever the
 * error's fixed text plus, on the server side, a reason for the log that carries no key
 * material or request data.
 */
public class SkiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final SkiError error;

    public SkiException(SkiError error) {
        this(error, error.text());
    }

    public SkiException(SkiError error, String reason) {
        super(reason, null, false, false);
        this.error = error;
    }

    public SkiException(SkiError error, String reason, Throwable cause) {
        super(reason, cause, false, false);
        this.error = error;
    }

    public SkiError error() {
        return error;
    }

    /**
     * The error a failed operation's future carries: its {@link SkiException}'s (unwrapped from a
     * {@link java.util.concurrent.CompletionException}), else {@link SkiError#UNSPECIFIED_ERROR}.
     */
    public static SkiError errorOf(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof SkiException ski ? ski.error() : SkiError.UNSPECIFIED_ERROR;
    }
}
