// ScaleUpRequest -- one request line of the rescale protocol, already checked against ProtocolLimits.
package io.elastikey.scaleup.protocol;

import java.util.Objects;

/**
 * A request as it travels: {@code {"op":"rescale","client":..,"memory_mb":..,"reason":..}}, or {@code status} /
 * {@code release} / {@code watch} with only the client, or {@code {"op":"pool","client":..,"memory_mb":..}} (an
 * administrator resizing the agent's pool). The factories check the limits, so an instance is always sendable.
 *
 * @param memoryMb the total asked for ({@code rescale}), the pool's new size ({@code pool}); 0 otherwise
 * @param reason free text for the agent's log ({@code rescale} only; empty otherwise)
 */
public record ScaleUpRequest(Op op, String client, long memoryMb, String reason) {

    /** The {@code op} values. */
    public enum Op {
        RESCALE, STATUS, RELEASE,
        /** Keep the connection open: the agent writes {@code give_back} requests for the client on it. */
        WATCH,
        /** Set the agent's pool to {@code memory_mb} (root or the agent's own user only). */
        POOL;

        /** Whether the op carries {@code memory_mb}. */
        public boolean carriesMemory() {
            return this == RESCALE || this == POOL;
        }

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The op spelled {@code wire}, or {@code null}. */
        public static Op fromWire(String wire) {
            for (Op op : values()) {
                if (op.wireName().equals(wire)) {
                    return op;
                }
            }
            return null;
        }
    }

    public ScaleUpRequest {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(reason, "reason");
        String problem = ProtocolLimits.clientNameProblem(client);
        if (problem == null) {
            problem = ProtocolLimits.memoryProblem(memoryMb);
        }
        if (problem == null) {
            problem = ProtocolLimits.reasonProblem(reason);
        }
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    public static ScaleUpRequest rescale(String client, long memoryMb, String reason) {
        return new ScaleUpRequest(Op.RESCALE, client, memoryMb, reason == null ? "" : reason);
    }

    public static ScaleUpRequest status(String client) {
        return new ScaleUpRequest(Op.STATUS, client, 0, "");
    }

    public static ScaleUpRequest release(String client) {
        return new ScaleUpRequest(Op.RELEASE, client, 0, "");
    }

    public static ScaleUpRequest watch(String client) {
        return new ScaleUpRequest(Op.WATCH, client, 0, "");
    }

    /** @param client who asks, for the agent's log (the agent checks the caller's uid, not this name) */
    public static ScaleUpRequest pool(String client, long poolMb) {
        return new ScaleUpRequest(Op.POOL, client, poolMb, "");
    }
}
