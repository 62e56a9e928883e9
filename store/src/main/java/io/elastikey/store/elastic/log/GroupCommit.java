// GroupCommit -- makes appended records durable per the fsync policy: one fsync covers every writer waiting.
package io.elastikey.store.elastic.log;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Group commit, leader style (as in the databases that named it): tracks the newest sequence number
 * written and the newest one fsynced, and lets a writer return once an fsync that started after its
 * append has completed.
 *
 * <p>A writer whose record is not yet durable either
 * <ul>
 *   <li>finds no fsync running and becomes the <em>leader</em>: it fsyncs at once, covering every
 *       record appended before the fsync began, its own and any other writer's; or</li>
 *   <li>finds one running and waits. When it ends, every waiter wakes; those it covered return, and
 *       the first still uncovered leads the next fsync, which covers all the others at once.</li>
 * </ul>
 * So a lone writer pays one fsync and no waiting (no interval, no hand-off to a thread), and under
 * load there is at most one fsync running and one batch gathering: the writers that arrive during an
 * fsync share the next one, however many they are. The fsync runs outside the lock, so appends go on
 * meanwhile; {@link Log#forceActive()} reads the last sequence number before it forces, so it never
 * claims a record appended after it started.
 *
 * <p>A writer that must not block (an event loop) hands over what to do once its records are durable
 * instead ({@link #whenDurable}). One thread of the log, the <em>syncer</em>, then leads fsyncs back to
 * back for as long as such actions wait, and runs each action once an fsync covers it. That costs a
 * wake-up only when the syncer was idle, where a parked worker per waiting batch cost one hand-off to the
 * worker and one back per batch.
 *
 * <p>The syncer <em>gathers</em> before it leads the next fsync: once an fsync has answered n records, the next
 * one waits until n more are appended, or one fsync's time (the recent average) has passed, whichever comes
 * first. Why: writers in a closed loop (a client waiting for each reply) come straight back once answered. An
 * fsync started at once, for the others that arrived meanwhile, would run while they are on their way, so they
 * would wait for all of it and then their own: the writers split into two groups taking turns, each waiting
 * two fsyncs a write. Gathered, they share one. On a 2-vCPU VM with redis-benchmark's 50 clients, that halved
 * the fsyncs and raised the SETs per second by a tenth (docs/benchmarks.md). A writer that does not come back
 * costs the others at most one fsync's time; a lone writer never waits, since its own next record is the one
 * awaited.
 *
 * <ul>
 *   <li>{@code ALWAYS} and {@code GROUP}: the above. {@code GROUP} may also hold a leader back so
 *       that fsyncs start at most once per {@code delayMillis} (0, the default, never waits): for a
 *       disk whose fsync is so dear that fewer, larger batches win. After a quiet spell longer than
 *       the delay the leader never waits.</li>
 *   <li>{@code EVERYSEC}: nobody waits; a background thread leads an fsync once a second when anything was
 *       written since the last one.</li>
 *   <li>{@code NEVER}: nobody waits; records reach the disk when the OS writes them back.</li>
 * </ul>
 * A failed fsync fails the log ({@link Log#fail}); every waiter then throws.
 */
final class GroupCommit implements AutoCloseable {

    /** What group commit needs of the log: the fsync, and the log's failed state. */
    interface Target {
        /** Fsyncs what was appended; returns the last sequence number the fsync covers. */
        long force() throws IOException;

        void fail(StoreException e);

        /** The failure that failed the log, or null. */
        StoreException failure();
    }

    private static final long EVERY_SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Target log;
    private final FsyncPolicy policy;
    private final long delayNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition fsyncEnded = lock.newCondition();

    // Guarded by lock (written also read without it, as a hint).
    private volatile long written;
    private volatile long synced;
    private boolean syncing;
    private long lastFsyncStart;
    private volatile boolean closed;
    /** {@code EVERYSEC}'s fsync thread; null under the other policies. */
    private Thread everySecond;

    /** What {@link #whenDurable} was given to run once an fsync covers {@code seq}. */
    private record DurableAction(long seq, Consumer<RuntimeException> action) {}

    // Guarded by lock: the actions waiting, and the syncer that runs them (started by the first).
    private final List<DurableAction> actions = new ArrayList<>();
    private final Condition actionAdded = lock.newCondition();
    private Thread syncer;
    private boolean syncerIdle;

    // The syncer's gathering: the newest fsyncs' recent average duration (under lock), and, while it gathers,
    // the sequence number that ends it and the syncer to wake then (both null/0 when not gathering).
    private long fsyncNanos;
    private volatile long gatherUntilSeq;
    private volatile Thread gathering;

    GroupCommit(Target log, FsyncPolicy policy, int delayMillis) {
        this.log = log;
        this.policy = policy;
        this.delayNanos = policy == FsyncPolicy.GROUP ? TimeUnit.MILLISECONDS.toNanos(delayMillis) : 0;
        this.lastFsyncStart = System.nanoTime() - delayNanos;
    }

    void start(long lastSequence) {
        written = lastSequence;
        synced = lastSequence;
        if (policy == FsyncPolicy.EVERYSEC) {
            everySecond = new Thread(this::syncEverySecond, "elastikey-log-fsync");
            everySecond.setDaemon(true);
            everySecond.start();
        }
    }

    /**
     * {@code EVERYSEC}: once a second, an fsync of what was written since the last one, until closed. A failed fsync
     * fails the log ({@link #lead}), so later writes are refused; the thread then has nothing left to do.
     */
    private void syncEverySecond() {
        while (!closed) {
            parkUntil(System.nanoTime() + EVERY_SECOND_NANOS, Long.MAX_VALUE);
            if (!closed && written > synced) {
                try {
                    syncTo(written);
                } catch (StoreException failed) {
                    return;
                }
            }
        }
    }

    /** Called under the log's lock after each append. */
    void written(long seq) {
        written = seq;
        Thread g = gathering;
        if (g != null && seq >= gatherUntilSeq) {
            LockSupport.unpark(g);
        }
    }

    void await(long seq) {
        if (policy.waitsForFsync()) {
            syncTo(seq);
        }
    }

    /** Whether {@link #await} would return at once. */
    boolean isDurable(long seq) {
        return !policy.waitsForFsync() || synced >= seq;
    }

    /** Returns once an fsync covering {@code seq} has completed, leading one if none is running. */
    void syncTo(long seq) {
        if (synced >= seq) {
            return;
        }
        lock.lock();
        try {
            syncToLocked(seq);
        } finally {
            lock.unlock();
        }
    }

    private void syncToLocked(long seq) {
        while (synced < seq) {
            throwIfFailed();
            if (syncing) {
                fsyncEnded.awaitUninterruptibly();
            } else {
                lead();
            }
        }
    }

    /**
     * Never blocks: runs {@code then} with null once the record with sequence number {@code seq} is as durable as the
     * policy promises, or with the failure that failed the log. At once, on this thread, if it already is; otherwise
     * later, on the syncer thread, so {@code then} must be quick and must not block (hand the answer to an event
     * loop, say). An exception it throws is dropped.
     */
    void whenDurable(long seq, Consumer<RuntimeException> then) {
        if (isDurable(seq)) {
            then.accept(null);
            return;
        }
        lock.lock();
        try {
            actions.add(new DurableAction(seq, then));
            if (syncer == null) {
                syncer = new Thread(this::runActions, "elastikey-log-syncer");
                syncer.setDaemon(true);
                syncer.start();
            } else if (syncerIdle) {
                actionAdded.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The syncer: while actions wait, an fsync up to the newest they wait for (led here, or shared with a writer
     * already leading one), then the actions it covered, run outside the lock. Ends once closed with none left.
     */
    private void runActions() {
        List<DurableAction> ready = new ArrayList<>();
        long gatherSeq = 0; // gather until this record is appended ...
        long gatherEnd = 0; // ... or until this time
        lock.lock();
        try {
            while (true) {
                while (actions.isEmpty()) {
                    if (closed) {
                        syncer = null; // an action handed over after this starts another, which ends the same way
                        return;
                    }
                    syncerIdle = true;
                    actionAdded.awaitUninterruptibly();
                    syncerIdle = false;
                }
                if (written < gatherSeq && System.nanoTime() < gatherEnd) {
                    lock.unlock();
                    try {
                        gather(gatherSeq, gatherEnd);
                    } finally {
                        lock.lock();
                    }
                }
                RuntimeException failure = null;
                long syncedBefore = synced;
                try {
                    syncToLocked(newestWaitedFor());
                } catch (StoreException e) {
                    failure = e;
                }
                takeCovered(ready, failure != null);
                gatherSeq = written + (synced - syncedBefore);
                gatherEnd = System.nanoTime() + fsyncNanos;
                lock.unlock();
                try {
                    run(ready, failure);
                } finally {
                    ready.clear();
                    lock.lock();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Outside the lock: parks until record {@code seq} is appended ({@link #written} wakes it), {@code end}, close. */
    private void gather(long seq, long end) {
        gatherUntilSeq = seq;
        gathering = Thread.currentThread();
        try {
            parkUntil(end, seq);
        } finally {
            gathering = null;
        }
    }

    /**
     * Parks until {@link System#nanoTime} {@code end}, until the log closes, or until record {@code seq} is written
     * ({@code Long.MAX_VALUE}: no record ends it); whoever ends it early unparks this thread.
     */
    private void parkUntil(long end, long seq) {
        for (long left = end - System.nanoTime(); left > 0 && written < seq && !closed;
                left = end - System.nanoTime()) {
            LockSupport.parkNanos(this, left);
        }
    }

    /** Whether a syncer thread is running (or about to end): for tests. */
    boolean hasSyncer() {
        lock.lock();
        try {
            return syncer != null;
        } finally {
            lock.unlock();
        }
    }

    private long newestWaitedFor() {
        long newest = 0;
        for (DurableAction a : actions) {
            newest = Math.max(newest, a.seq);
        }
        return newest;
    }

    /** Moves the actions the last fsync covered (all of them, {@code all}, after a failure) into {@code ready}. */
    private void takeCovered(List<DurableAction> ready, boolean all) {
        actions.removeIf(a -> (all || a.seq <= synced) && ready.add(a));
    }

    private static void run(List<DurableAction> ready, RuntimeException failure) {
        for (DurableAction a : ready) {
            try {
                a.action.accept(failure);
            } catch (RuntimeException dropped) {
                // the action's own business (an event loop shut down, say); the syncer goes on
            }
        }
    }

    /** Under the lock, with no fsync running: fsyncs (outside the lock) and wakes every waiter. */
    private void lead() {
        syncing = true;
        long wait = lastFsyncStart + delayNanos - System.nanoTime();
        lock.unlock();
        long covered = -1;
        try {
            if (wait > 0) {
                parkUntil(System.nanoTime() + wait, Long.MAX_VALUE);
            }
            lastFsyncStart = System.nanoTime(); // only the leader writes it; the lock below publishes it
            covered = log.force();
        } catch (IOException e) {
            log.fail(new StoreException("fsync of the log failed: " + e.getMessage(), e));
        } finally {
            long took = System.nanoTime() - lastFsyncStart;
            lock.lock();
            fsyncNanos = fsyncNanos == 0 ? took : (3 * fsyncNanos + took) / 4;
            syncing = false;
            if (covered > synced) {
                synced = covered;
            }
            fsyncEnded.signalAll();
        }
    }

    /**
     * Wakes {@code EVERYSEC}'s thread, which then sees {@link #closed} and ends. No join: an fsync it is running is
     * one {@link #close}'s own {@link #syncTo} waits for, and one it is about to begin covers nothing {@code close}
     * has not (it returns without leading), so none outlives the log's last fsync.
     */
    private void stopEverySecond() {
        if (everySecond != null) {
            LockSupport.unpark(everySecond);
        }
    }

    /** Wakes an idle syncer, which then sees {@link #closed} and ends; a busy one ends once its actions have run. */
    private void stopSyncerIfIdle() {
        LockSupport.unpark(gathering);
        lock.lock();
        try {
            actionAdded.signal();
        } finally {
            lock.unlock();
        }
    }

    private void throwIfFailed() {
        StoreException f = log.failure();
        if (f != null) {
            throw new StoreException("write not durable: " + f.getMessage(), f);
        }
    }

    @Override
    public void close() {
        closed = true;
        stopEverySecond();
        stopSyncerIfIdle();
        if (log.failure() == null && policy != FsyncPolicy.NEVER) {
            try {
                syncTo(written);
            } catch (StoreException ignored) {
                // reported to writers already
            }
        }
    }
}
