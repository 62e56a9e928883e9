// GovernorDecision -- one tick as it happened: the signals, the decision, what the agent said.
package io.elastikey.store.governor;

import java.util.Locale;

/**
 * @param signals what the tick saw
 * @param kind what was decided
 * @param targetBytes the budget the decision aimed at
 * @param reason why
 * @param outcome what came of it
 * @param grantedMb the agent's grant after the tick; -1 when unknown
 * @param budgetBytes the store's budget after the tick (a resize towards it may still run)
 */
public record GovernorDecision(Signals signals, Decision.Kind kind, long targetBytes, String reason, Outcome outcome,
                               long grantedMb, long budgetBytes) {

    /** The one log line: signals, decision, reason, outcome, grant. */
    public String logLine() {
        return String.format(Locale.ROOT, "governor %s %s -> %s (%s): %s; grant %s, budget %s; signals: %s",
                kind.name().toLowerCase(Locale.ROOT), Signals.mib(signals.budgetBytes()), Signals.mib(targetBytes),
                reason, outcome.tag(), grantedMb < 0 ? "unknown" : grantedMb + "MiB", Signals.mib(budgetBytes),
                signals.summary());
    }
}
