// KeylessFormatException -- a Keyless body whose items cannot be read.
package io.elastikey.protocol.keyless;

/**
 * A body that breaks the item rules: an item running past the body's end, an opcode item that is not one byte, a
 * tag given twice. The header was sound, so only the one request fails. Messages name the rule, never the data.
 */
public final class KeylessFormatException extends Exception {
    public KeylessFormatException(String reason) {
        super(reason, null, false, false);
    }
}
