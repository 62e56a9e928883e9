// KeylessAnswerException -- a Keyless error answer, as the SKI error callers already handle plus the exact code.
package io.elastikey.protocol.keyless;

import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;

/**
 * The server answered opcode {@code 0xFF}. Callers that serve both protocols see the {@link SkiError} it maps to
 * ({@link KeylessClient} says which); tests and tools read the {@link KeylessError} itself.
 */
public final class KeylessAnswerException extends SkiException {
    private final KeylessError keylessError;
    private final int code;

    KeylessAnswerException(int code) {
        super(skiErrorOf(KeylessError.ofCode(code)), "the Keyless server answered error 0x"
                + Integer.toHexString(code) + describe(KeylessError.ofCode(code)));
        this.code = code;
        this.keylessError = KeylessError.ofCode(code);
    }

    /** The error answered, or {@code null} for a code the protocol does not define (see {@link #code()}). */
    public KeylessError keylessError() {
        return keylessError;
    }

    /** The error byte as answered. */
    public int code() {
        return code;
    }

    private static String describe(KeylessError error) {
        return error == null ? " (unknown)" : " (" + error.text() + ")";
    }

    private static SkiError skiErrorOf(KeylessError error) {
        if (error == null) {
            return SkiError.UNSPECIFIED_ERROR;
        }
        return switch (error) {
            case KEY_NOT_FOUND -> SkiError.SPKI_NOT_FOUND;
            case INTERNAL_ERROR, READ_ERROR -> SkiError.OVERLOADED;
            case CRYPTO_FAILURE, VERSION_MISMATCH, BAD_OPCODE, UNEXPECTED_OPCODE, FORMAT_ERROR -> SkiError.MALFORMED_REQUEST;
        };
    }
}
