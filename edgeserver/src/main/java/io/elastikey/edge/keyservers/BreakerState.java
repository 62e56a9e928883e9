// BreakerState -- the three states of a key-server endpoint's circuit breaker.
package io.elastikey.edge.keyservers;

import java.util.Locale;

/**
 * Where an endpoint stands with the pool: {@link #CLOSED} takes traffic, {@link #OPEN} takes none until its open
 * duration has passed, {@link #HALF_OPEN} has exactly one trial request (or health probe) out whose result decides
 * between the other two.
 */
public enum BreakerState {
    CLOSED,
    OPEN,
    HALF_OPEN;

    /** Lower case with a hyphen ({@code half-open}), for logs, status pages and metric tags. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
