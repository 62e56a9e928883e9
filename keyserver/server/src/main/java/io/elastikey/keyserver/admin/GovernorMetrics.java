// GovernorMetrics -- exports the memory governor's state and counters as Prometheus metrics.
package io.elastikey.keyserver.admin;

import io.elastikey.store.governor.AgentState;
import io.elastikey.store.governor.Decision;
import io.elastikey.store.governor.GovernorDecision;
import io.elastikey.store.governor.MemoryGovernor;
import io.elastikey.store.governor.Outcome;
import io.elastikey.store.governor.Signals;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Binds a {@link MemoryGovernor} to the key server's registry; every value is read at scrape time
 * from {@link MemoryGovernor#stats()}. Names (Prometheus spelling):
 * <ul>
 *   <li>{@code elastikey_store_governor_budget_bytes}, {@code _grant_bytes} (-1 before the agent answered),
 *       {@code _agent_up} (1 or 0);
 *   <li>{@code elastikey_store_governor_decisions_total{kind=hold|grow|shrink|sync}},
 *       {@code elastikey_store_governor_outcomes_total{outcome=none|granted|partial|denied|error|unavailable}},
 *       {@code elastikey_store_governor_agent_failures_total};
 *   <li>the latest tick's signals: {@code _request_rate}, {@code _miss_rate} (per second),
 *       {@code _miss_latency_p99_seconds}, {@code _resident_bytes}, {@code _available_bytes}
 *       (-1 when unknown).
 * </ul>
 */
public final class GovernorMetrics {

    private static final String PREFIX = "elastikey.store.governor.";

    private GovernorMetrics() {
    }

    public static void bind(KeyServerMetrics metrics, MemoryGovernor governor) {
        metrics.gauge(PREFIX + "budget.bytes", "Memory budget of the key store's memory tier", governor,
                g -> g.stats().budgetBytes());
        metrics.gauge(PREFIX + "grant.bytes", "Memory the scale-up agent granted; -1 before it answered", governor,
                g -> g.grantedMb() < 0 ? -1 : g.grantedMb() * (1L << 20));
        metrics.gauge(PREFIX + "agent.up", "1 when the scale-up agent answers, 0 otherwise", governor,
                g -> g.agentState() == AgentState.UP ? 1 : 0);
        for (Decision.Kind kind : Decision.Kind.values()) {
            metrics.counter(PREFIX + "decisions", "Governor decisions by kind", governor,
                    g -> g.stats().decisions(kind), "kind", kind.name().toLowerCase(Locale.ROOT));
        }
        for (Outcome outcome : Outcome.values()) {
            metrics.counter(PREFIX + "outcomes", "What came of governor decisions", governor,
                    g -> g.stats().outcomes(outcome), "outcome", outcome.tag());
        }
        metrics.counter(PREFIX + "agent.failures", "Calls to the scale-up agent that got no answer", governor,
                g -> g.stats().agentFailures());
        signal(metrics, "request.rate", "Key store lookups per second at the latest tick", governor,
                Signals::requestRate);
        signal(metrics, "miss.rate", "Key store misses per second (of stored keys) at the latest tick", governor,
                Signals::missRate);
        signal(metrics, "miss.latency.p99.seconds", "99th percentile latency of misses at the latest tick",
                governor, s -> s.missLatencyP99Nanos() < 0 ? -1 : s.missLatencyP99Nanos() / 1e9);
        signal(metrics, "resident.bytes", "The process's resident memory (VmRSS)", governor,
                Signals::residentBytes);
        signal(metrics, "available.bytes", "The machine's available memory (MemAvailable)", governor,
                Signals::availableBytes);
    }

    private static void signal(KeyServerMetrics metrics, String name, String description, MemoryGovernor governor,
                               ToDoubleFunction<Signals> value) {
        metrics.gauge(PREFIX + name, description, governor, g -> {
            GovernorDecision d = g.lastDecision();
            return d == null ? -1 : value.applyAsDouble(d.signals());
        });
    }
}
