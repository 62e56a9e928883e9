// Signals -- what the governor sees of the store and the machine at one tick.
package io.elastikey.store.governor;

import java.util.Locale;

/**
 * One sample, taken by a {@link SignalSampler}. Rates and ratios cover the interval since the
 * previous sample; sizes are the values at the sample. An unknown value is -1 (NaN for ratios).
 *
 * @param atNanos the ticker's time of the sample
 * @param intervalNanos time since the previous sample; 0 for the first, whose rates are 0
 * @param requestRate lookups per second
 * @param missRate lookups per second the memory tier missed for keys the store holds (misses of
 *        absent keys are left out: no memory would answer them)
 * @param hitRatio hits over lookups in the interval; NaN with no lookups
 * @param missLatencyP99Nanos 99th percentile latency of the interval's misses; -1 when unknown
 * @param entries keys in the store
 * @param memoryEntries keys in the memory tier
 * @param memoryBytes bytes the memory tier accounts for
 * @param budgetBytes the memory tier's budget (the target of the latest resize)
 * @param allEntriesBytes estimated budget that would hold every entry in memory
 * @param resizing whether a resize is running
 * @param residentBytes the process's resident memory (VmRSS); -1 when unknown
 * @param availableBytes the machine's available memory (MemAvailable); -1 when unknown
 */
public record Signals(
        long atNanos,
        long intervalNanos,
        double requestRate,
        double missRate,
        double hitRatio,
        long missLatencyP99Nanos,
        long entries,
        long memoryEntries,
        long memoryBytes,
        long budgetBytes,
        long allEntriesBytes,
        boolean resizing,
        long residentBytes,
        long availableBytes) {

    /** A compact one-line form for logs. */
    public String summary() {
        return String.format(Locale.ROOT,
                "req %.0f/s, miss %.0f/s, hit %s, miss p99 %s, tier %s/%s of %s (%d/%d entries)%s, rss %s, avail %s",
                requestRate, missRate, Double.isNaN(hitRatio) ? "n/a" : String.format(Locale.ROOT, "%.3f", hitRatio),
                missLatencyP99Nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.0fus", missLatencyP99Nanos / 1e3),
                mib(memoryBytes), mib(budgetBytes), mib(allEntriesBytes), memoryEntries, entries,
                resizing ? " resizing" : "", mib(residentBytes), mib(availableBytes));
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1fMiB", bytes / (double) (1 << 20));
    }
}
