// ScaleUpResponse -- the agent's answer to one request, field for field the JSON of PROTOCOLS.md section 3.
package io.elastikey.scaleup;

/**
 * @param status what the agent decided
 * @param client the client name the answer is for
 * @param grantedMb the client's total grant after the request, in MiB
 * @param poolFreeMb memory left in the agent's pool after the request, in MiB
 * @param elapsedUs how long the agent took, actuator included, in microseconds
 * @param message the agent's explanation; never {@code null}, may be empty
 */
public record ScaleUpResponse(Status status, String client, long grantedMb, long poolFreeMb, long elapsedUs,
                              String message) {

    /** The {@code status} values of the protocol. */
    public enum Status {
        /** Everything asked for is granted. */
        GRANTED,
        /** Less than asked for is granted; {@code grantedMb} says how much. */
        PARTIAL,
        /** Nothing more is granted; the previous grant stands. */
        DENIED,
        /** The agent could not act on the request (malformed, unknown op, actuator failure); see the message. */
        ERROR;

        /** The protocol's spelling: {@code granted}, {@code partial}, {@code denied}, {@code error}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The status spelled {@code wire}, or {@code null} if there is none. */
        public static Status fromWire(String wire) {
            for (Status s : values()) {
                if (s.wireName().equals(wire)) {
                    return s;
                }
            }
            return null;
        }
    }
}
