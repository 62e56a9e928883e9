// Decision -- what the policy wants at one tick, why, and the state it carries to the next.
package io.elastikey.store.governor;

/**
 * @param kind what to do
 * @param targetBytes the budget to move to; the current budget for {@link Kind#HOLD}
 * @param reason why, in a few words for the log line and the agent's ledger
 * @param next the policy state for the next tick
 */
public record Decision(Kind kind, long targetBytes, String reason, State next) {

    /** What the policy can decide. */
    public enum Kind {
        /** Keep the budget. */
        HOLD,
        /** Ask for more memory, then resize up to what is granted. */
        GROW,
        /** Resize down, then give the memory back. */
        SHRINK,
        /** Not a policy decision: the governor aligning the agent's grant with the store's budget. */
        SYNC,
        /** Not a policy decision: the agent asked for memory back; resize down, then rescale down (the ack). */
        GIVE_BACK
    }

    /**
     * The policy's memory between ticks: the hysteresis counters.
     *
     * @param pressureTicks consecutive ticks under miss pressure
     * @param quietTicks consecutive quiet ticks
     * @param cooldownTicks ticks left before the next change is allowed
     */
    public record State(int pressureTicks, int quietTicks, int cooldownTicks) {
        public static final State INITIAL = new State(0, 0, 0);
    }
}
