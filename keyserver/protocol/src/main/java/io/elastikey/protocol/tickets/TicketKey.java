// TicketKey -- one session-ticket key: a name that tickets carry, an HMAC key and an AES key.
package io.elastikey.protocol.tickets;

import java.util.Arrays;
import java.util.Objects;

/**
 * The three parts BoringSSL's ticket encryption uses, 16 bytes each, for one rotation period ({@code epoch}).
 * The arrays are owned by the key; {@link #toString()} names the epoch only.
 */
public record TicketKey(long epoch, byte[] name, byte[] hmacKey, byte[] aesKey) {
    /** The length of each of the three parts. */
    public static final int PART_LENGTH = 16;

    public TicketKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(hmacKey, "hmacKey");
        Objects.requireNonNull(aesKey, "aesKey");
        if (name.length != PART_LENGTH || hmacKey.length != PART_LENGTH || aesKey.length != PART_LENGTH) {
            throw new IllegalArgumentException("a ticket key has three parts of " + PART_LENGTH + " bytes");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TicketKey k && k.epoch == epoch && Arrays.equals(k.name, name)
                && Arrays.equals(k.hmacKey, hmacKey) && Arrays.equals(k.aesKey, aesKey);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(epoch) * 31 + Arrays.hashCode(name);
    }

    @Override
    public String toString() {
        return "TicketKey[epoch=" + epoch + "]";
    }
}
