// StoreStats -- a point-in-time view of a store: sizes, memory tier, hit ratio, lookup latency.
package io.elastikey.store;

import org.HdrHistogram.Histogram;

/**
 * What a store reports about itself. Counters are cumulative since the store was opened; take two
 * snapshots and subtract for an interval ({@link Histogram#subtract} works on the latency copy).
 *
 * @param entries keys stored
 * @param diskBytes bytes of the store's files on disk (log segments and index)
 * @param memoryEntries entries whose value is in the in-memory tier
 * @param memoryBytes bytes the in-memory tier accounts for (keys, values, per-entry overhead)
 * @param memoryBudgetBytes the in-memory tier's budget
 * @param hits lookups answered from memory
 * @param misses lookups that went to disk (or found nothing)
 * @param lookupLatencyNanos a copy of the lookup latency histogram, in nanoseconds; the caller owns it
 * @param notFound the misses whose key was not in the store at all (0 when the store does not tell)
 * @param missLatencyNanos a copy of the latency histogram of misses alone, in nanoseconds (empty when the
 *        store records no latency); {@code null} when the store does not time misses alone
 */
public record StoreStats(
        long entries,
        long diskBytes,
        long memoryEntries,
        long memoryBytes,
        long memoryBudgetBytes,
        long hits,
        long misses,
        Histogram lookupLatencyNanos,
        long notFound,
        Histogram missLatencyNanos) {

    /** Stats of a store that does not tell misses of absent keys apart nor time misses alone. */
    public StoreStats(long entries, long diskBytes, long memoryEntries, long memoryBytes, long memoryBudgetBytes,
                      long hits, long misses, Histogram lookupLatencyNanos) {
        this(entries, diskBytes, memoryEntries, memoryBytes, memoryBudgetBytes, hits, misses, lookupLatencyNanos,
                0, null);
    }

    /** Hits over lookups, 0 when nothing was looked up. */
    public double hitRatio() {
        long lookups = hits + misses;
        return lookups == 0 ? 0.0 : (double) hits / lookups;
    }
}
