// TicketKeySchedule -- which session-ticket keys the fleet uses at each moment, derived, never stored.
package io.elastikey.keyserver.tickets;

import io.elastikey.protocol.tickets.TicketKey;
import io.elastikey.protocol.tickets.TicketKeySet;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Time is cut into periods of {@code rotation}; period {@code e} (milliseconds since the epoch divided by the
 * rotation) has its own key, HMAC-SHA256 of the period number under a 32-byte secret that every key server of a
 * deployment derives from the shared KEK. So two key servers hand out the same keys without coordinating, a
 * restart changes nothing, and no key is ever written down.
 *
 * <p>The set for a moment is the current period's key (primary), the next one's and the previous one's: a ticket
 * resumes until two rotations have passed since it was issued, and edges that rotate a little apart accept each
 * other's tickets. Thread-safe; the set is computed once per period.
 */
public final class TicketKeySchedule {
    private static final byte[] LABEL = "elastikey session ticket key".getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec secret;
    private final Duration rotation;
    private final LongSupplier clockMillis;
    private volatile TicketKeySet cached;
    private volatile long cachedEpoch = Long.MIN_VALUE;

    /**
     * @param secret      32 bytes shared by the deployment's key servers; copied
     * @param rotation    how long each key is primary; at least a second
     * @param clockMillis wall-clock milliseconds (key servers must agree on the time within a period)
     */
    public TicketKeySchedule(byte[] secret, Duration rotation, LongSupplier clockMillis) {
        if (rotation.toSeconds() < 1) {
            throw new IllegalArgumentException("the ticket key rotation must be at least a second");
        }
        this.secret = new SecretKeySpec(secret.clone(), "HmacSHA256");
        this.rotation = rotation;
        this.clockMillis = clockMillis;
    }

    /** The period the clock is in now. */
    public long epoch() {
        return Math.floorDiv(clockMillis.getAsLong(), rotation.toMillis());
    }

    /** The keys an edge should hold now: primary, next, previous. */
    public TicketKeySet current() {
        long epoch = epoch();
        TicketKeySet set = cached;
        if (set != null && cachedEpoch == epoch) {
            return set;
        }
        set = new TicketKeySet(rotation, List.of(key(epoch), key(epoch + 1), key(epoch - 1)));
        cached = set;
        cachedEpoch = epoch;
        return set;
    }

    /** The key of period {@code epoch}. */
    TicketKey key(long epoch) {
        byte[] first = mac(epoch, (byte) 1);
        byte[] second = mac(epoch, (byte) 2);
        TicketKey key = new TicketKey(epoch, Arrays.copyOfRange(first, 0, TicketKey.PART_LENGTH),
                Arrays.copyOfRange(first, TicketKey.PART_LENGTH, 2 * TicketKey.PART_LENGTH),
                Arrays.copyOfRange(second, 0, TicketKey.PART_LENGTH));
        Arrays.fill(first, (byte) 0);
        Arrays.fill(second, (byte) 0);
        return key;
    }

    private byte[] mac(long epoch, byte block) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            mac.update(LABEL);
            mac.update(ByteBuffer.allocate(Long.BYTES).putLong(epoch).array());
            mac.update(block);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has HmacSHA256", e);
        }
    }

    public Duration rotation() {
        return rotation;
    }
}
