// ReadGate -- a connection reads from its socket while no handler has a reason to hold its reads.
package io.elastikey.protocol.net;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * Auto-read has one switch and several handlers with a reason to turn it off: the Keyless endpoint while a
 * connection has too many requests in flight, {@link WritabilityReadGate} while the client leaves answers unread.
 * Each turning it back on alone would undo the other's hold, so each holds and releases its own reason here, and
 * the connection reads again only when none is held. Confined to the channel's event loop.
 */
public final class ReadGate {
    /** Why a connection's reads are held. */
    public enum Reason {
        /** Answers are waiting for the client to read them (the channel is not writable). */
        UNREAD_ANSWERS,
        /** The connection has as many requests in flight as it may. */
        REQUESTS_IN_FLIGHT
    }

    private static final AttributeKey<ReadGate> KEY = AttributeKey.valueOf(ReadGate.class, "gate");

    private int held;

    private ReadGate() {
    }

    /** Stops reads on {@code channel} for {@code reason}, until that reason is released. */
    public static void hold(Channel channel, Reason reason) {
        of(channel).held |= 1 << reason.ordinal();
        channel.config().setAutoRead(false);
    }

    /** Lifts {@code reason}; reads resume when no other reason is held. */
    public static void release(Channel channel, Reason reason) {
        ReadGate gate = of(channel);
        gate.held &= ~(1 << reason.ordinal());
        if (gate.held == 0 && !channel.config().isAutoRead()) {
            channel.config().setAutoRead(true);
        }
    }

    private static ReadGate of(Channel channel) {
        ReadGate gate = channel.attr(KEY).get();
        if (gate == null) {
            gate = new ReadGate();
            channel.attr(KEY).set(gate);
        }
        return gate;
    }
}
