// KekException -- the key-encryption key is missing, malformed, too widely readable, or not this store's.
package io.elastikey.keyserver.keys;

/**
 * The key server cannot start (or a {@code keys} command cannot run) because of its key-encryption key. The
 * message names the file or variable and what to do; it never contains key bytes.
 */
public final class KekException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KekException(String message) {
        super(message);
    }

    public KekException(String message, Throwable cause) {
        super(message, cause);
    }
}
