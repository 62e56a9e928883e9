// ScaleUpRequest -- one request line of the rescale protocol, already checked against ProtocolLimits.
package io.elastikey.scaleup.protocol;

import java.util.Objects;

/**
 * A request as it travels: {@code {"op":"rescale","client":..,"memory_mb":..,"reason":..}}, or {@code status} /
 * {@code release} with only the client. The factories check the limits, so an instance is always sendable.
 *
 * @param memoryMb the total asked for ({@code rescale} only; 0 otherwise)
 * @param reason free text for the agent's log ({@code rescale} only; empty otherwise)
 */
public record ScaleUpRequest(Op op, String client, long memoryMb, String reason) {

    /** The {@code op} values. */
    public enum Op {
        RESCALE, STATUS, RELEASE;

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
}
