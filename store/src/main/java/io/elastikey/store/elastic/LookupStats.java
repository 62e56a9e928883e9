// LookupStats -- hit and miss counters and the lookup latency histogram of one store.
package io.elastikey.store.elastic;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts lookups without contention on the hot path: striped adders for hits and misses, and an
 * HdrHistogram {@link Recorder} (wait-free for writers) for latency, folded into a cumulative
 * histogram when someone asks. With latency recording off, {@link #start()} returns 0 and no
 * clock is read.
 */
final class LookupStats {

    private final boolean recordLatency;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final Recorder latency = new Recorder(3);
    private final Histogram total = new Histogram(3);

    LookupStats(boolean recordLatency) {
        this.recordLatency = recordLatency;
    }

    /** A start timestamp to hand back to {@link #hit} or {@link #miss}. */
    long start() {
        return recordLatency ? System.nanoTime() : 0;
    }

    void hit(long start) {
        hits.increment();
        stop(start);
    }

    void miss(long start) {
        misses.increment();
        stop(start);
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

    private void stop(long start) {
        if (start != 0) {
            latency.recordValue(Math.max(0, System.nanoTime() - start));
        }
    }
}
