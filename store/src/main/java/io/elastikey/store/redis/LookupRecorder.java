// LookupRecorder -- hit and miss counters and the lookup latency histogram of one RedisStore.
package io.elastikey.store.redis;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts lookups without contention: striped adders for hits (a {@code get} that found its key) and misses (one
 * that did not), and an HdrHistogram {@link Recorder} (wait-free for writers) for the latency of each {@code GET}
 * round trip, folded into a cumulative histogram when {@link #latencyCopy()} is asked. The same scheme as
 * ElasticStore's {@code LookupStats}; failed lookups count as neither.
 */
final class LookupRecorder {
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final Recorder latency = new Recorder(3);
    private final Histogram total = new Histogram(3);

    /** Records one lookup that started at {@code startNanos} ({@link System#nanoTime()}). */
    void record(boolean found, long startNanos) {
        (found ? hits : misses).increment();
        latency.recordValue(Math.max(0, System.nanoTime() - startNanos));
    }

    long hits() {
        return hits.sum();
    }

    long misses() {
        return misses.sum();
    }

    /** The cumulative latency histogram so far, as a copy the caller owns. */
    Histogram latencyCopy() {
        synchronized (total) {
            total.add(latency.getIntervalHistogram());
            return total.copy();
        }
    }
}
