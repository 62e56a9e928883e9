// ResizeOperation -- a running change of the memory budget: its progress and its outcome.
package io.elastikey.store.elastic;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Handle on one {@link ElasticStore#resize(long)}. Counters move while the memory tier is filled,
 * so a caller can draw a progress bar from {@link #bytesMoved()} against {@link #targetBytes()}.
 */
public final class ResizeOperation {

    /** Where the operation is. */
    public enum State { RUNNING, DONE, CANCELLED, FAILED }

    private final long targetBytes;
    private final long startNanos = System.nanoTime();
    private final AtomicLong entriesMoved = new AtomicLong();
    private final AtomicLong bytesMoved = new AtomicLong();
    private final AtomicLong entriesScanned = new AtomicLong();
    private final CompletableFuture<ResizeOperation> completion = new CompletableFuture<>();
    private volatile State state = State.RUNNING;
    private volatile boolean cancelRequested;
    private volatile long elapsedNanos = -1;
    private volatile Throwable failure;
    /** Set by the resizer thread before the first step; read by it alone, and by toString. */
    volatile ResizePacer pacer;

    /** Whether the fill reads entries from disk, or only carries over what the old tier held. */
    final boolean fromDisk;

    ResizeOperation(long targetBytes, boolean fromDisk) {
        this.targetBytes = targetBytes;
        this.fromDisk = fromDisk;
    }

    public long targetBytes() { return targetBytes; }

    /** Entries copied into the new memory tier, from the old one or from disk. */
    public long entriesMoved() { return entriesMoved.get(); }

    /** Budget bytes those entries account for. */
    public long bytesMoved() { return bytesMoved.get(); }

    /** Index entries looked at so far while choosing what to load. */
    public long entriesScanned() { return entriesScanned.get(); }

    public State state() { return state; }

    public Throwable failure() { return failure; }

    /** Time the operation spent paused so that lookups could run (see {@link ElasticStoreConfig#resizeDutyCycle()}). */
    public long pausedNanos() {
        ResizePacer p = pacer;
        return p == null ? 0 : p.pausedNanos();
    }

    /** Time from start to finish, or so far while running. */
    public long elapsedNanos() {
        long e = elapsedNanos;
        return e >= 0 ? e : System.nanoTime() - startNanos;
    }

    /** Completes when the operation ends, whichever way. */
    public CompletableFuture<ResizeOperation> completion() {
        return completion;
    }

    /** Waits for the end; returns the final state. */
    public State await(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        try {
            completion.get(timeout, unit);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
        return state;
    }

    void moved(long bytes) {
        entriesMoved.incrementAndGet();
        bytesMoved.addAndGet(bytes);
    }

    void scanned() {
        entriesScanned.incrementAndGet();
    }

    void cancel() {
        cancelRequested = true;
    }

    boolean cancelRequested() {
        return cancelRequested;
    }

    void finish(State end, Throwable cause) {
        failure = cause;
        elapsedNanos = System.nanoTime() - startNanos;
        state = end;
        completion.complete(this);
    }

    @Override
    public String toString() {
        return String.format("resize to %,d bytes: %,d entries / %,d bytes moved, %s after %.1f ms (%.1f ms paused "
                + "for lookups)", targetBytes, entriesMoved(), bytesMoved(), state, elapsedNanos() / 1e6,
                pausedNanos() / 1e6);
    }
}
