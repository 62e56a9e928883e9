// Outcome -- what came of one governor decision.
package io.elastikey.store.governor;

/** The result of a tick's decision: the agent's answer, or why there was none. */
public enum Outcome {
    /** Nothing was asked (a hold). */
    NONE,
    /** The agent granted all of it (or a shrink was given back). */
    GRANTED,
    /** The agent granted part of it; the budget moved to the part. */
    PARTIAL,
    /** The agent refused; the budget stays. */
    DENIED,
    /** The agent answered with an error; the budget stays. */
    ERROR,
    /** No answer: no agent, a timeout or a broken answer ({@link io.elastikey.scaleup.ScaleUpException}). */
    UNAVAILABLE;

    /** Lower-case name, for metric tags and logs. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
