// ScaleUpException -- a rescale call that got no well-formed answer from the agent.
package io.elastikey.scaleup;

import java.io.IOException;

/**
 * Why a call failed without an answer. The reasons match libscaleup's error codes one for one, so both
 * implementations of {@link ScaleUpClient} fail the same way for the same cause.
 */
public final class ScaleUpException extends IOException {

    /** The failure causes; {@link #code()} is libscaleup's {@code SCALEUP_E*} value. */
    public enum Reason {
        /** Nothing listens on the socket path, or the path does not exist ({@code SCALEUP_ENOAGENT}). */
        NO_AGENT(-1),
        /** The agent did not answer within the timeout ({@code SCALEUP_ETIMEOUT}). */
        TIMEOUT(-2),
        /** The answer was not a JSON object of the protocol, or lacked a required field ({@code SCALEUP_EPROTO}). */
        MALFORMED_ANSWER(-3),
        /** The answer exceeded the size limit ({@code SCALEUP_ETOOBIG}). */
        ANSWER_TOO_LARGE(-4),
        /** An argument was invalid: an empty or too long client name, a negative size ({@code SCALEUP_EINVAL}). */
        INVALID_ARGUMENT(-5),
        /** Another socket error: the connection reset, a read or write failed ({@code SCALEUP_EIO}). */
        IO(-6);

        private final int code;

        Reason(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The reason for libscaleup's {@code code}, or {@link #IO} for a code it does not know. */
        public static Reason fromCode(int code) {
            for (Reason r : values()) {
                if (r.code == code) {
                    return r;
                }
            }
            return IO;
        }
    }

    private final Reason reason;

    public ScaleUpException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public ScaleUpException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
