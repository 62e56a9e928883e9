// PemException -- PEM input that is not what the caller asked for, described without echoing its content.
package io.elastikey.protocol.pki;

import java.io.IOException;

/**
 * Thrown when PEM text (or a PEM file) does not hold what the caller expected: no PEM at all, the wrong kind of
 * block, an encrypted key, or data that does not decode.
 *
 * <p>The message always reads {@code <source>: expected <what>, found <what>} and is built from PEM labels and
 * counts only, never from the data itself, because the input may be a private key and messages end up in logs. For
 * the same reason no underlying parser exception is attached as the cause: its message could quote the input.
 *
 * <p>It is an {@link IOException} because it reports unreadable input, which callers reading key files already
 * handle alongside a missing file.
 */
public final class PemException extends IOException {
    private static final long serialVersionUID = 1L;

    PemException(String source, String expected, String found) {
        super(source + ": expected " + expected + ", found " + found);
    }
}
