// LookupStats -- hit and miss counters and the lookup latency histograms of one store.
package io.elastikey.store.elastic;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts lookups without contention on the hot path: striped adders for hits, misses and misses
 * that found nothing, and HdrHistogram {@link Recorder}s (wait-free for writers) for latency, one
 * for every lookup and one for misses only, each folded into a cumulative histogram when someone
 * asks. Recording allocates nothing. With latency recording off, {@link #start()} returns 0 and no
 * clock is read.
 */
final class LookupStats {

    private final boolean recordLatency;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder notFound = new LongAdder();
    private final Recorder latency = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private final Recorder missLatency = new Recorder(3);
    private final Histogram missTotal = new Histogram(3);

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

    /** A lookup the memory tier did not answer; {@code found} says whether the disk had the key. */
    void miss(long start, boolean found) {
        misses.increment();
        if (!found) {
            notFound.increment();
        }
        if (start != 0) {
            long nanos = Math.max(0, System.nanoTime() - start);
            latency.recordValue(nanos);
            missLatency.recordValue(nanos);
        }
    }

    long hits() {
        return hits.sum();
    }

    long misses() {
        return misses.sum();
    }

    /** Misses whose key was not in the store either: more memory would not have answered them. */
    long notFound() {
        return notFound.sum();
    }

    /** Lookups so far, hits and misses: a cheap measure of foreground activity. */
    long lookups() {
        return hits.sum() + misses.sum();
    }

    /** The cumulative latency histogram so far, as a copy the caller owns. */
    Histogram latencyCopy() {
        synchronized (total) {
            total.add(latency.getIntervalHistogram());
            return total.copy();
        }
    }

    /** The cumulative latency histogram of misses so far, as a copy the caller owns. */
    Histogram missLatencyCopy() {
        synchronized (missTotal) {
            missTotal.add(missLatency.getIntervalHistogram());
            return missTotal.copy();
        }
    }

    private void stop(long start) {
        if (start != 0) {
            latency.recordValue(Math.max(0, System.nanoTime() - start));
        }
    }
}
