// SignalSampler -- turns the store's cumulative counters and /proc into one tick's Signals.
package io.elastikey.store.governor;

import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResizeOperation;
import io.elastikey.store.elastic.hot.HotTier;
import org.HdrHistogram.Histogram;

/**
 * Samples a store and the machine. The store's counters are cumulative, so each sample is taken
 * against the previous one: rates over the elapsed ticker time, the miss p99 from the difference
 * of two cumulative histograms. Not thread-safe: one governor thread calls it.
 */
public final class SignalSampler {

    private final ElasticStore store;
    private final ProcMemory proc;
    private final long configuredEntryCost;
    private StoreStats previous;
    private long previousNanos;

    public SignalSampler(ElasticStore store, ProcMemory proc) {
        this.store = store;
        this.proc = proc;
        this.configuredEntryCost = HotTier.cost(store.config().averageKeySize(), store.config().averageValueSize());
    }

    /** Takes a sample at ticker time {@code nowNanos}. */
    public Signals sample(long nowNanos) {
        StoreStats s = store.stats();
        ResizeOperation op = store.lastResize();
        boolean resizing = op != null && op.state() == ResizeOperation.State.RUNNING;
        long interval = previous == null ? 0 : Math.max(0, nowNanos - previousNanos);
        double requestRate = 0;
        double missRate = 0;
        double hitRatio = Double.NaN;
        long missP99 = -1;
        if (previous != null && interval > 0) {
            double seconds = interval / 1e9;
            long hits = s.hits() - previous.hits();
            long misses = s.misses() - previous.misses();
            long absent = s.notFound() - previous.notFound();
            requestRate = (hits + misses) / seconds;
            missRate = Math.max(0, misses - absent) / seconds;
            hitRatio = hits + misses == 0 ? Double.NaN : (double) hits / (hits + misses);
            missP99 = intervalP99(s.missLatencyNanos(), previous.missLatencyNanos());
        }
        previous = s;
        previousNanos = nowNanos;
        return new Signals(nowNanos, interval, requestRate, missRate, hitRatio, missP99, s.entries(),
                s.memoryEntries(), s.memoryBytes(), s.memoryBudgetBytes(), allEntriesBytes(s), resizing,
                proc.residentBytes(), proc.availableBytes());
    }

    /** Every entry's cost at the memory tier's average, or the configured average when it is empty. */
    private long allEntriesBytes(StoreStats s) {
        double cost = s.memoryEntries() > 0 ? (double) s.memoryBytes() / s.memoryEntries() : configuredEntryCost;
        return (long) Math.ceil(s.entries() * cost);
    }

    private static long intervalP99(Histogram now, Histogram before) {
        if (now == null) {
            return -1;
        }
        Histogram interval = now.copy();
        if (before != null) {
            interval.subtract(before);
        }
        return interval.getTotalCount() == 0 ? -1 : interval.getValueAtPercentile(99);
    }
}
