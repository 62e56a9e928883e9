// ResizePacer -- makes a resize yield the CPU to foreground lookups while there are any.
package io.elastikey.store.elastic;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Paces the resizer in slices of work: after each slice of about {@link #SLICE_NANOS} it looks at
 * the store's lookup counter, and if lookups ran during the slice it parks for as long as the
 * slice took times {@code (1 - duty) / duty}. An idle store therefore resizes flat out, and a busy
 * one gives the foreground at least {@code 1 - duty} of the resizer's core. The resizer holds no
 * lock while parked (every copy takes and drops its stripe lock, and index walks visit entries
 * outside Chronicle's segment locks), so a pause delays only the resize.
 *
 * <p>The clock is read once every {@link #CHECK_EVERY} steps, so a cheap step (scanning one index
 * entry) costs a counter increment. One instance per resize; used by the resizer thread only.
 */
final class ResizePacer {

    /** Work between two looks at the foreground: short enough that one pause is under the noise. */
    static final long SLICE_NANOS = 1_000_000;
    static final int CHECK_EVERY = 16;

    private final double duty;
    private final LongSupplier lookups;
    private long sliceStart;
    private long lookupsAtSliceStart;
    private int steps;
    private volatile long pausedNanos;
    private long pauses;

    /**
     * @param duty the share of time the resize may work while lookups run, in (0, 1]; 1 never pauses
     * @param lookups the store's cumulative lookup count
     */
    ResizePacer(double duty, LongSupplier lookups) {
        if (!(duty > 0 && duty <= 1)) {
            throw new IllegalArgumentException("duty must be in (0, 1], was " + duty);
        }
        this.duty = duty;
        this.lookups = lookups;
        this.sliceStart = System.nanoTime();
        this.lookupsAtSliceStart = lookups.getAsLong();
    }

    /** One unit of resize work done; may park the calling thread. */
    void step() {
        if (duty == 1 || ++steps < CHECK_EVERY) {
            return;
        }
        steps = 0;
        long now = System.nanoTime();
        long worked = now - sliceStart;
        if (worked < SLICE_NANOS) {
            return;
        }
        long seen = lookups.getAsLong();
        if (seen != lookupsAtSliceStart) {
            long pause = (long) (worked * (1 - duty) / duty);
            LockSupport.parkNanos(pause);
            long end = System.nanoTime();
            pausedNanos += end - now;
            pauses++;
            now = end;
            seen = lookups.getAsLong();
        }
        sliceStart = now;
        lookupsAtSliceStart = seen;
    }

    /** Total time parked so far. */
    long pausedNanos() {
        return pausedNanos;
    }

    long pauses() {
        return pauses;
    }
}
