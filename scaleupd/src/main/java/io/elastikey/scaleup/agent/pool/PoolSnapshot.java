// PoolSnapshot -- the pool's accounting at one instant, for tests, logs and the startup report.
package io.elastikey.scaleup.agent.pool;

import java.util.Map;

/**
 * @param poolMb the pool's size
 * @param committedMb grants plus the unused part of minimum reservations; may exceed {@code poolMb} after a
 *                    restart with a smaller pool
 * @param freeMb what can still be lent: {@code max(0, poolMb - committedMb)}
 * @param grants every non-zero grant by client name
 */
public record PoolSnapshot(long poolMb, long committedMb, long freeMb, Map<String, Long> grants) {

    public PoolSnapshot {
        grants = Map.copyOf(grants);
    }

    /** The sum of all grants. */
    public long grantedMb() {
        return grants.values().stream().mapToLong(Long::longValue).sum();
    }

    /** How far the commitments exceed the pool; 0 normally. */
    public long overCommitMb() {
        return Math.max(0, committedMb - poolMb);
    }
}
