// KeylessMessage -- one Keyless message body, its items read.
package io.elastikey.protocol.keyless;

import java.util.Arrays;

/**
 * The items of one message that this side uses. Arrays are owned by the message. Addresses and the server name are
 * read past, not kept: the key server finds keys by identifier only.
 *
 * @param id      the header's request ID
 * @param opcode  the opcode byte (0-255), as sent: it may name no {@link KeylessOpcode}
 * @param payload the payload item, or {@code null} when there was none
 * @param ski     the Subject Key Identifier item (20 bytes), or {@code null}
 * @param digest  the certificate digest item (32 bytes), or {@code null}
 */
public record KeylessMessage(int id, int opcode, byte[] payload, byte[] ski, byte[] digest) implements KeylessFrame {

    /** The key identifier a request names: its SKI when it has one, else its certificate digest, else {@code null}. */
    public byte[] keyIdentifier() {
        return ski != null ? ski : digest;
    }

    @Override
    public String toString() {
        // Never the payload: it is a pre-master secret or the data of a handshake.
        return "KeylessMessage[id=" + Integer.toUnsignedString(id) + ", opcode=0x" + Integer.toHexString(opcode)
                + ", payload=" + (payload == null ? "none" : payload.length + " bytes")
                + (ski != null ? ", ski" : "") + (digest != null ? ", digest" : "") + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeylessMessage m && m.id == id && m.opcode == opcode && Arrays.equals(m.payload, payload)
                && Arrays.equals(m.ski, ski) && Arrays.equals(m.digest, digest);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * id + opcode) + Arrays.hashCode(payload);
    }
}
