// Resizer -- changes the memory budget by building a new in-memory table and retiring the old one.
package io.elastikey.store.elastic;

import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.elastic.ElasticStore.Tiers;
import io.elastikey.store.elastic.hot.HotTier;
import io.elastikey.store.elastic.hot.KeyHash;
import io.elastikey.store.elastic.log.RecordFormat;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scale-up and scale-down are one operation in two parts. The rebuild: make a table for the new budget, copy the old
 * table's entries into it, publish it, wait until no reader is inside the old one, free the old one. The fill: while
 * room remains, copy entries from disk into the published table. A table's memory leaves the process when it is
 * closed; building the smaller table also leaves it without the slack of sizes no longer written.
 *
 * <p>Memory: a grow's fill first touches the room it fills ({@link HotTier#prepare}), and until it has, a miss is
 * admitted only into memory already touched; a lookup never takes a page fault for an admission.
 *
 * <p>Priority: first the entries already in memory (most frequent first under FREQUENCY, in
 * admission order under SEQUENTIAL), then, while room remains, entries from disk. SEQUENTIAL walks
 * the in-storage table in order (the report's seq-scale-up). FREQUENCY builds a histogram of the
 * sketch's estimates (0..15) weighted by entry cost, loads every key more frequent than the
 * highest frequency that no longer fits whole, then fills what room remains in index order; with
 * no accesses counted yet it degenerates to the sequential walk.
 *
 * <p>During the rebuild, writers put their value in both tables (the copy below and a write of the same key are
 * ordered by the key's stripe lock, so neither can leave a stale value) and misses are not admitted anywhere; a
 * lookup that misses the old table tries the new one. During the fill the table is the store's own: writes, the
 * copies and the admission of misses all go to it under the key's stripe lock.
 *
 * <p>Threads: the rebuild runs at normal priority; it is bounded by the old table's size, and it is how memory is
 * given back (to the governor, before a kernel limit drops), which cannot wait. A grow's rebuild, which can, leaves
 * touching its memory and the carry-over to a third thread at idle priority, unless that thread stalls. The
 * fill runs on a second thread at the
 * OS's idle priority ({@link ElasticStoreConfig#resizeIdlePriority()}): on cores that never idle it hardly runs, and
 * nothing waits for it, since the table it fills already serves and admits. One part of one resize runs at a time
 * ({@link #turn}); a resize cancels the one before it. Both parts yield to lookups: a {@link ResizePacer} pauses them
 * between entries in proportion to their own work whenever lookups ran meanwhile
 * ({@link ElasticStoreConfig#resizeDutyCycle()}).
 */
final class Resizer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Resizer.class);
    /** Entries in a row without room after which a walk counts the tier full ({@link #walk}). */
    static final int UNFIT_IN_A_ROW = 256;
    /**
     * How long the idle part of a grow's rebuild may go without a step before the rebuild goes ahead itself: a thread
     * that gets idle cores only seldom is slow but advances, one that gets none does not. (A fixed 5 s deadline fell
     * back to normal priority in the middle of a slow but steady touch of 406 MiB, and lookups paid for it: p99 64 ms.)
     */
    static final long IDLE_STALL_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ElasticStore store;
    /** Runs the rebuild of every resize ({@link #rebuild}). */
    private final ExecutorService worker;
    /** Runs the fill from disk ({@link #fill}) at SCHED_IDLE, or is {@link #worker} when idle priority is off. */
    private final ExecutorService idleWorker;
    /**
     * Touches a grow's memory and carries its old entries over at SCHED_IDLE ({@link #runAtIdlePriority}), or
     * null when idle priority is off. A thread of its own: the idle worker may be taken by a cancelled fill that waits
     * for the {@link #turn} the rebuild holds.
     */
    private final ExecutorService preparer;
    /** Held by the part of a resize that runs: a resize and the cancelled one it replaces never touch tiers at once. */
    private final Object turn = new Object();
    private volatile ResizeOperation current;
    private volatile long targetBudget;
    /**
     * The copy's read buffer, one per copying thread: the rebuild's, the preparer's (a stopped idle part may finish
     * its last copy while the rebuild goes on) and the fill's. Made at a thread's first copy.
     */
    private final ThreadLocal<ValueScratch> scratch;

    Resizer(ElasticStore store) {
        this.store = store;
        this.scratch = ThreadLocal.withInitial(() -> new ValueScratch(store.maxValueSize()));
        this.worker = Executors.newSingleThreadExecutor(r -> daemon(r, "store-resizer"));
        boolean idle = store.config().resizeIdlePriority();
        this.idleWorker = idle ? idlePriorityThread("store-resizer-idle") : worker;
        this.preparer = idle ? idlePriorityThread("store-resizer-prepare") : null;
    }

    private static ExecutorService idlePriorityThread(String name) {
        return Executors.newSingleThreadExecutor(r -> daemon(() -> {
            lowerPriority();
            r.run();
        }, name));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Puts the resizer's thread at the OS's idle priority ({@link IdlePriority}); says so once per thread. */
    private static void lowerPriority() {
        IdlePriority.Outcome outcome = IdlePriority.lowerCurrentThread();
        if (outcome == IdlePriority.Outcome.IDLE) {
            LOG.debug("resizer thread runs at SCHED_IDLE");
        } else {
            LOG.info("resizer thread could not be put at SCHED_IDLE ({}); resizes compete with lookups for cores",
                    outcome);
        }
    }

    synchronized ResizeOperation resize(long budgetBytes) {
        return resize(budgetBytes, true);
    }

    /** A resize that fills the new tier from disk only when {@code fromDisk}, else from the old tier alone. */
    synchronized ResizeOperation resize(long budgetBytes, boolean fromDisk) {
        ResizeOperation previous = current;
        if (previous != null) {
            previous.cancel();
        }
        ResizeOperation op = new ResizeOperation(budgetBytes, fromDisk);
        current = op;
        targetBudget = budgetBytes;
        worker.execute(() -> {
            synchronized (turn) {
                rebuild(op);
            }
        });
        return op;
    }

    ResizeOperation last() {
        return current;
    }

    long targetBudget() {
        return targetBudget;
    }

    /**
     * The part of a resize that cannot wait, at normal priority: a table of the new size, holding what the old one
     * held (most frequent first), published. Then, if wanted, {@link #fill} goes on at idle priority.
     */
    private void rebuild(ResizeOperation op) {
        if (op.cancelRequested()) {
            op.finish(ResizeOperation.State.CANCELLED, null);
            return;
        }
        HotTier old = store.tiers.current();
        HotTier next = null;
        boolean filling = false;
        boolean grow = op.targetBytes() > old.budgetBytes();
        AtomicReference<HotTier> made = new AtomicReference<>();
        op.pacer = new ResizePacer(store.config().resizeDutyCycle(), store::lookupCount);
        try {
            next = grow ? newTierAtIdlePriority(op, made) : newTier(op, () -> { });
            HotTier fresh = next;
            if (grow) {
                runAtIdlePriority(op, step -> fresh.prepare(old.usedBytes(), step));
            }
            store.tiers = new Tiers(old, next);
            if (!grow || !runAtIdlePriority(op, step -> carryOver(op, old, fresh, step))) {
                carryOver(op, old, next, () -> checkCancelled(op)); // (what is left of it)
            }
            filling = op.fromDisk && !full(next);
            if (filling) {
                next.admitIntoPreparedMemoryOnly(); // until the fill has touched the memory (HotTier.prepare)
            }
            publish(next);
            close(old, grow);
        } catch (CancellationException e) {
            publish(old);
            abandon(next, made);
            op.finish(ResizeOperation.State.CANCELLED, null);
            return;
        } catch (RuntimeException | Error e) {
            publish(old);
            abandon(next, made);
            LOG.error("resize to {} bytes failed", op.targetBytes(), e);
            restoreTarget(op, old.budgetBytes());
            op.finish(ResizeOperation.State.FAILED, e);
            return;
        }
        if (filling) {
            HotTier published = next;
            idleWorker.execute(() -> {
                synchronized (turn) {
                    fill(op, published);
                }
            });
        } else {
            done(op);
        }
    }

    private HotTier newTier(ResizeOperation op, Runnable step) {
        return HotTier.create(op.targetBytes(), store.config().averageKeySize(), store.config().averageValueSize(),
                store.epochs, step);
    }

    /**
     * A grow's new table, made on the idle thread: its slot array (tens of megabytes at a million entries, every page
     * touched for the first time) is zeroed there. If that thread stalls, the rebuild makes one itself; whichever
     * comes second closes its own ({@code made} keeps the first).
     */
    private HotTier newTierAtIdlePriority(ResizeOperation op, AtomicReference<HotTier> made) {
        runAtIdlePriority(op, step -> keepFirst(made, newTier(op, step)));
        if (made.get() == null) {
            keepFirst(made, newTier(op, () -> checkCancelled(op)));
        }
        return made.get();
    }

    private static void keepFirst(AtomicReference<HotTier> made, HotTier tier) {
        if (!made.compareAndSet(null, tier)) {
            tier.close();
        }
    }

    /** After a failed or cancelled rebuild: closes its new table, and one the idle thread may still finish later. */
    private static void abandon(HotTier next, AtomicReference<HotTier> made) {
        HotTier late = made.getAndSet(HotTier.empty()); // an idle thread finishing later closes its own
        if (late != null) {
            late.close();
        }
        if (next != null) {
            next.close();
        }
    }

    /**
     * Frees the old table once no reader is inside it. A grow's old table goes back on the idle thread, after any
     * idle part still running: a grow returns nothing the governor waits for, and hundreds of megabytes unmapped at
     * normal priority took the lookups' cores in the second of the publish. A shrink frees it here, at once.
     */
    private void close(HotTier old, boolean grow) {
        if (grow && preparer != null) {
            try {
                preparer.execute(old::close);
                return;
            } catch (RejectedExecutionException closing) {
                // the store is closing: free it here
            }
        }
        old.close();
    }

    /**
     * Runs part of a grow's rebuild on the {@link #preparer} thread and waits for it: touching the memory the
     * carry-over copies into (page faults of fresh memory, on a virtual machine that gave the pages back to its host
     * some microseconds each) and the carry-over itself. Nothing in a grow is urgent, so it should take only idle
     * cores. On cores that never idle the preparer may not run at all: once it has made no step for
     * {@link #IDLE_STALL_NANOS} the rebuild stops it (at its next step) and goes on itself. A resize cancelled
     * meanwhile stops waiting at once. Neither waits for the idle thread to stop, which on busy cores could take as
     * long: what it still does is safe beside the rebuild (copies under each key's stripe lock, each thread its own
     * read buffer; a table closed meanwhile refuses them).
     *
     * @param work given the step to call between units of its work (pacing, cancellation, the stop)
     * @return whether the work ran to its end (always, when idle priority is off: then it runs on this thread)
     */
    private boolean runAtIdlePriority(ResizeOperation op, Consumer<Runnable> work) {
        if (preparer == null) {
            work.accept(() -> checkCancelled(op));
            return true;
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong steps = new AtomicLong();
        Future<?> running = preparer.submit(() -> work.accept(() -> {
            if (stop.get()) {
                throw new CancellationException("the rebuild went ahead without the idle thread");
            }
            steps.incrementAndGet();
            checkCancelled(op);
        }));
        long seen = 0;
        long lastStep = System.nanoTime();
        try {
            while (!running.isDone()) {
                if (op.cancelRequested()) {
                    throw new CancellationException();
                }
                long now = System.nanoTime();
                if (steps.get() != seen) {
                    seen = steps.get();
                    lastStep = now;
                } else if (now - lastStep > IDLE_STALL_NANOS) {
                    return false; // the finally stops it; its last copy may overlap ours, as any two copiers may
                }
                try {
                    running.get(10, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // look again
                }
            }
            running.get();
            return true;
        } catch (ExecutionException e) {
            throw rethrown(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while the idle thread worked");
        } finally {
            stop.set(true);
        }
    }

    private static RuntimeException rethrown(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(cause);
    }

    /**
     * The part that can wait, on the idle-priority thread: entries from disk into the published table while room
     * remains. Lookups use the table meanwhile and their misses are admitted to it as usual, so on cores that never
     * idle, where this thread hardly runs, the table still fills the way a cache does. The new budget holds whether
     * or not the fill ends: a cancelled fill leaves the table as it is to the resize that cancelled it.
     */
    private void fill(ResizeOperation op, HotTier tier) {
        try {
            checkCancelled(op);
            tier.prepare(tier.budgetBytes() - tier.usedBytes(), () -> checkCancelled(op));
            tier.admitAnywhere();
            loadFromDisk(op, tier);
            done(op);
        } catch (CancellationException e) {
            op.finish(ResizeOperation.State.CANCELLED, null);
        } catch (RuntimeException | Error e) {
            // The table is in place at its new budget; only the prefetch stopped. Misses go on filling it.
            LOG.warn("resize to {} bytes: filling the memory tier from disk stopped", op.targetBytes(), e);
            op.finish(ResizeOperation.State.DONE, null);
        } finally {
            tier.admitAnywhere();
        }
    }

    private static void done(ResizeOperation op) {
        op.finish(ResizeOperation.State.DONE, null);
        LOG.info("{}", op);
    }

    /** After a failure the old table stays; the budget reported is its budget again. */
    private synchronized void restoreTarget(ResizeOperation op, long budget) {
        if (current == op) {
            targetBudget = budget;
        }
    }

    private void publish(HotTier tier) {
        store.tiers = new Tiers(tier, null);
        store.epochs.synchronize();
    }

    /**
     * Copies the old tier's entries, most frequent first under FREQUENCY: the same frequency threshold as a fill
     * from disk ({@link #frequencyThreshold}), over the old tier's keys, then the keys above it, then the others in
     * admission order while room remains. A sort of a million keys by frequency would allocate tens of megabytes
     * (boxed indexes, a copy of the key array) that stay alive through the young collections it triggers.
     */
    private void carryOver(ResizeOperation op, HotTier old, HotTier next, Runnable step) {
        long[] hashes = old.hashesInRingOrder(); // one array of longs; keys are read back one at a time
        if (store.sketch == null) {
            copyAll(op, old, hashes, next, f -> true, step);
            return;
        }
        long[] costAt = new long[16];
        for (long hash : hashes) {
            step.run();
            int length = old.valueLengthOf(hash);
            byte[] key = length < 0 ? null : old.keyOf(hash);
            if (key != null) {
                costAt[store.sketch.frequency(hash)] += HotTier.cost(key.length, length);
            }
        }
        int threshold = threshold(costAt, next.budgetBytes() - next.usedBytes());
        copyAll(op, old, hashes, next, f -> f > threshold, step);
        copyAll(op, old, hashes, next, f -> true, step); // what still fits; see loadFromDisk for why not f <= threshold
    }

    private void copyAll(ResizeOperation op, HotTier old, long[] hashes, HotTier next,
                         java.util.function.IntPredicate wanted, Runnable step) {
        for (long hash : hashes) {
            if (full(next)) {
                return;
            }
            if (store.sketch != null && !wanted.test(store.sketch.frequency(hash))) {
                continue;
            }
            byte[] key = old.keyOf(hash); // null: removed by a write since
            if (key != null && !next.contains(key)) {
                copy(op, key, next, step);
            }
        }
    }

    private void loadFromDisk(ResizeOperation op, HotTier next) {
        if (full(next)) {
            return;
        }
        if (store.sketch == null || !store.sketch.hasCounts()) {
            walk(op, next, f -> true);
            return;
        }
        int threshold = frequencyThreshold(op, next);
        walk(op, next, f -> f > threshold);
        // What still fits, in index order: every key not loaded yet, not "f <= threshold". Lookups go on counting
        // during the first walk, so a key below the threshold then may be above it now: with "f <= threshold" both
        // walks skipped it (a 10% -> 100% grow under load left 234,000 of a million keys on disk).
        walk(op, next, f -> true);
    }

    /**
     * A frequency f such that every key more frequent than f fits in the room left: the highest f
     * at which the keys of frequency f and above no longer fit, or 0 when all counted keys fit.
     */
    private int frequencyThreshold(ResizeOperation op, HotTier next) {
        long[] costAt = new long[16];
        store.index.forEachReusingKeys((key, loc) -> {
            checkCancelled(op);
            op.scanned();
            costAt[store.frequency(key)] += HotTier.cost(key.length, valueLength(key, loc.length));
        }, () -> false);
        return threshold(costAt, next.budgetBytes() - next.usedBytes());
    }

    /** The threshold of {@link #frequencyThreshold} from the cost of the keys at each frequency. */
    private static int threshold(long[] costAt, long room) {
        long sum = 0;
        for (int f = 15; f > 0; f--) {
            sum += costAt[f];
            if (sum > room) {
                return f;
            }
        }
        return 0;
    }

    /**
     * Copies the wanted entries that still fit, in index order. The walk ends once {@value #UNFIT_IN_A_ROW} entries in a
     * row found no room: the tier is as good as full, and the rest of a million-entry index would only be read, paced
     * against the lookups, while misses wait to be admitted.
     */
    private void walk(ResizeOperation op, HotTier next, java.util.function.IntPredicate wanted) {
        int[] unfitInARow = {0};
        store.index.forEachReusingKeys((key, loc) -> { // the key array is reused: copy() must not keep it
            if (unfitInARow[0] >= UNFIT_IN_A_ROW) {
                return; // finishing the segment at hand
            }
            checkCancelled(op);
            op.scanned();
            if (full(next)
                    || next.usedBytes() + HotTier.cost(key.length, valueLength(key, loc.length)) > next.budgetBytes()) {
                unfitInARow[0]++;
                return;
            }
            unfitInARow[0] = 0;
            if (next.contains(key) || !wanted.test(store.frequency(key))) {
                return;
            }
            copy(op, key, next, () -> checkCancelled(op));
        }, () -> unfitInARow[0] >= UNFIT_IN_A_ROW);
    }

    /** Copies one entry into {@code next}, under the key's stripe lock so no write interleaves. */
    private void copy(ResizeOperation op, byte[] key, HotTier next, Runnable step) {
        step.run();
        long hash = KeyHash.hash64(key);
        var stripe = store.stripes.of(hash);
        stripe.lock();
        try {
            byte[] value = store.readStored(key, scratch.get());
            if (value != null && next.putIfRoom(key, hash, value)) {
                op.moved(HotTier.cost(key.length, value.length));
            }
        } catch (CorruptRecordException e) {
            LOG.warn("resize skips a damaged record: {}", e.getMessage()); // it stays on disk, reported on read
        } finally {
            stripe.unlock();
        }
    }

    private static int valueLength(byte[] key, int recordLength) {
        return recordLength - RecordFormat.RECORD_HEADER_SIZE - key.length;
    }

    private static boolean full(HotTier next) {
        return next.budgetBytes() - next.usedBytes() <= HotTier.MIN_ENTRY_COST;
    }

    /** Called once per entry looked at or copied: stops a cancelled resize, paces a running one. */
    private static void checkCancelled(ResizeOperation op) {
        if (op.cancelRequested()) {
            throw new CancellationException();
        }
        op.pacer.step();
    }

    @Override
    public void close() {
        ResizeOperation op = current;
        if (op != null) {
            op.cancel();
        }
        worker.shutdown();
        idleWorker.shutdown();
        try {
            worker.awaitTermination(30, TimeUnit.SECONDS);
            idleWorker.awaitTermination(30, TimeUnit.SECONDS);
            if (preparer != null) { // last: a rebuild hands it work until it ends, an old table to free among it
                preparer.shutdown();
                preparer.awaitTermination(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
