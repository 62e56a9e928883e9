// KeylessError -- the one-byte error codes of a Keyless error answer (PROTOCOLS.md section 2).
package io.elastikey.protocol.keyless;

/**
 * Every error a Keyless server answers, as opcode {@code 0xFF} with this code as its one-byte payload. The codes
 * are Cloudflare's; clients match on them, so nothing else about a failure ever reaches the wire.
 */
public enum KeylessError {
    CRYPTO_FAILURE(0x01, "crypto failure"),
    KEY_NOT_FOUND(0x02, "key not found"),
    READ_ERROR(0x03, "read error"),
    VERSION_MISMATCH(0x04, "version mismatch"),
    BAD_OPCODE(0x05, "bad opcode"),
    UNEXPECTED_OPCODE(0x06, "unexpected opcode"),
    FORMAT_ERROR(0x07, "format error"),
    INTERNAL_ERROR(0x08, "internal error");

    private static final KeylessError[] VALUES = values();

    private final int code;
    private final String text;

    KeylessError(int code, String text) {
        this.code = code;
        this.text = text;
    }

    public int code() {
        return code;
    }

    /** A short description for logs and messages. */
    public String text() {
        return text;
    }

    /** The error with this code, or {@code null} for a code this side does not know. */
    public static KeylessError ofCode(int code) {
        for (KeylessError error : VALUES) {
            if (error.code == code) {
                return error;
            }
        }
        return null;
    }
}
