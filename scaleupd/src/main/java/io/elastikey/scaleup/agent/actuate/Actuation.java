// Actuation -- what an actuator did with one grant.
package io.elastikey.scaleup.agent.actuate;

/**
 * @param applied whether the limit took effect beyond the ledger
 * @param note for the answer's message: where the limit went, or plainly why it was not applied; may be empty
 */
public record Actuation(boolean applied, String note) {

    public static Actuation applied(String note) {
        return new Actuation(true, note);
    }

    public static Actuation notApplied(String why) {
        return new Actuation(false, why);
    }
}
