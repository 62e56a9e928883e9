// GovernorStats -- a point-in-time view of a MemoryGovernor, for metrics and health pages.
package io.elastikey.store.governor;

import java.util.Map;

/**
 * Counters are cumulative since the governor was built.
 *
 * @param agentState whether the agent answers
 * @param grantedMb the agent's grant as last seen; -1 when unknown
 * @param budgetBytes the store's memory budget (the target of its latest resize)
 * @param ticks ticks run
 * @param decisions decisions by kind (every kind present)
 * @param outcomes outcomes by kind (every kind present)
 * @param agentFailures calls that got no answer
 * @param lastDecision the latest tick, or {@code null} before the first
 */
public record GovernorStats(AgentState agentState, long grantedMb, long budgetBytes, long ticks,
                            Map<Decision.Kind, Long> decisions, Map<Outcome, Long> outcomes, long agentFailures,
                            GovernorDecision lastDecision) {

    public long decisions(Decision.Kind kind) {
        return decisions.getOrDefault(kind, 0L);
    }

    public long outcomes(Outcome outcome) {
        return outcomes.getOrDefault(outcome, 0L);
    }
}
