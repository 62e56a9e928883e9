// GiveBackRequest -- the agent asking a client to bring its grant down, pushed on the client's watch connection.
package io.elastikey.scaleup;

import io.elastikey.scaleup.protocol.ProtocolLimits;

import java.nio.charset.StandardCharsets;

/**
 * The one message the agent sends unasked: {@code {"op":"give_back","client":..,"memory_mb":..,"granted_mb":..,
 * "deadline_ms":..,"reason":..}}, written on every connection that sent {@code watch} for the client. The client
 * answers by shrinking what it uses to {@code memoryMb} and then asking for that total with an ordinary
 * {@code rescale} (the acknowledgement); if no such rescale arrives within {@code deadlineMs}, the agent lowers the
 * grant (and the cgroup limit) to {@code memoryMb} itself.
 *
 * @param client the client asked
 * @param memoryMb the total grant to come down to
 * @param grantedMb the client's grant when the request was sent
 * @param deadlineMs how long, from the moment the agent sent it, the client has to answer
 * @param reason why, for the client's log (at most 256 bytes of UTF-8)
 */
public record GiveBackRequest(String client, long memoryMb, long grantedMb, long deadlineMs, String reason) {
    /** The {@code op} value that tells this message from an answer (which has {@code status} instead). */
    public static final String OP = "give_back";

    public GiveBackRequest {
        String problem = ProtocolLimits.clientNameProblem(client);
        if (problem == null) {
            problem = ProtocolLimits.memoryProblem(memoryMb);
        }
        if (problem == null) {
            problem = ProtocolLimits.memoryProblem(grantedMb);
        }
        if (problem == null && deadlineMs < 0) {
            problem = "deadline_ms must be >= 0";
        }
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        reason = fit(reason == null ? "" : reason.replace('\0', ' '));
    }

    /** The reason cut to the protocol's limit at a character boundary. */
    private static String fit(String reason) {
        while (reason.getBytes(StandardCharsets.UTF_8).length > ProtocolLimits.MAX_REASON_BYTES) {
            reason = reason.substring(0, reason.length() - 1);
        }
        return reason;
    }

    /** How much the client is asked to give back. */
    public long giveBackMb() {
        return Math.max(0, grantedMb - memoryMb);
    }
}
