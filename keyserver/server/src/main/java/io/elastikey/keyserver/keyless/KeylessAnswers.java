// KeylessAnswers -- which Keyless error answers each failure of the shared request path.
package io.elastikey.keyserver.keyless;

import io.elastikey.protocol.keyless.KeylessError;
import io.elastikey.protocol.ski.SkiError;

/**
 * The SKI errors of the shared request path in Keyless terms.
 *
 * <ul>
 *   <li>{@code spki not found} is {@code key not found}; so is {@code request denied}: Keyless has no refusal code,
 *       and answering a caller that may not use a key as if it did not exist tells it nothing about which keys
 *       exist. The audit line keeps the true reason.</li>
 *   <li>{@code malformed request} from the crypto engine (a key of another family than the opcode's, a digest of the
 *       wrong length, a ciphertext not below the modulus) is {@code crypto failure}, as gokeyless answers them.</li>
 *   <li>{@code overloaded} and {@code unspecified error} are {@code internal error}, which clients may retry.</li>
 * </ul>
 */
final class KeylessAnswers {
    private KeylessAnswers() {
    }

    static KeylessError errorFor(SkiError error) {
        return switch (error) {
            case SPKI_NOT_FOUND, REQUEST_DENIED -> KeylessError.KEY_NOT_FOUND;
            case MALFORMED_REQUEST -> KeylessError.CRYPTO_FAILURE;
            case OVERLOADED, UNSPECIFIED_ERROR -> KeylessError.INTERNAL_ERROR;
        };
    }
}
