// GroupCommit -- makes appended records durable per the fsync policy, sharing fsyncs between writers.
package io.elastikey.store.elastic.log;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Tracks the newest sequence number written and the newest one fsynced.
 *
 * <ul>
 *   <li>{@code ALWAYS}: a writer fsyncs itself unless another writer's fsync already covered its
 *       record; writers arriving during an fsync queue on {@link #syncLock} and usually find their
 *       record covered when they get it (leader-based group commit).
 *   <li>{@code GROUP}: a daemon thread fsyncs when something is pending, at most once per
 *       interval; writers wait for it. A write after a quiet spell is fsynced at once, so sparse
 *       writers see the fsync's latency, not the interval's; a busy log gets one fsync per
 *       interval however many writers share it.
 *   <li>{@code NEVER}: nobody waits; records reach the disk when the OS writes them back.
 * </ul>
 */
final class GroupCommit implements AutoCloseable {

    private final Log log;
    private final FsyncPolicy policy;
    private final int intervalMillis;
    private final Object syncLock = new Object();
    private final Object waiters = new Object();
    private volatile long written;
    private volatile long synced;
    private volatile boolean closed;
    private volatile boolean syncerParked;
    private volatile Thread syncer;

    GroupCommit(Log log, FsyncPolicy policy, int intervalMillis) {
        this.log = log;
        this.policy = policy;
        this.intervalMillis = intervalMillis;
    }

    void start(long lastSequence) {
        written = lastSequence;
        synced = lastSequence;
        if (policy == FsyncPolicy.GROUP) {
            syncer = new Thread(this::runSyncer, "elasticstore-group-commit");
            syncer.setDaemon(true);
            syncer.start();
        }
    }

    /** Called under the log's lock after each append. */
    void written(long seq) {
        written = seq;
        if (syncerParked) {
            LockSupport.unpark(syncer);
        }
    }

    void await(long seq) {
        switch (policy) {
            case NEVER -> { }
            case ALWAYS -> syncTo(seq);
            case GROUP -> waitFor(seq);
            default -> throw new IllegalStateException(policy.name());
        }
    }

    /** Fsyncs now unless {@code seq} is already durable. */
    void syncTo(long seq) {
        if (synced >= seq) {
            return;
        }
        synchronized (syncLock) {
            throwIfFailed();
            if (synced >= seq) {
                return;
            }
            try {
                synced = log.forceActive();
            } catch (IOException e) {
                log.fail(new StoreException("fsync of the log failed: " + e.getMessage(), e));
            } finally {
                synchronized (waiters) {
                    waiters.notifyAll();
                }
            }
            throwIfFailed();
        }
    }

    private void waitFor(long seq) {
        synchronized (waiters) {
            while (synced < seq) {
                throwIfFailed();
                if (closed) {
                    // close() syncs everything before stopping the syncer; this is a last resort.
                    break;
                }
                try {
                    waiters.wait(intervalMillis * 4L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StoreException("interrupted while waiting for the group fsync");
                }
            }
        }
        if (synced < seq) {
            syncTo(seq);
        }
    }

    private void throwIfFailed() {
        StoreException f = log.failure();
        if (f != null) {
            throw new StoreException("write not durable: " + f.getMessage(), f);
        }
    }

    private void runSyncer() {
        long lastSyncNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        while (!closed) {
            while (written <= synced && !closed) {
                syncerParked = true;
                if (written <= synced && !closed) {
                    LockSupport.park(this);
                }
                syncerParked = false;
            }
            long wait = lastSyncNanos + TimeUnit.MILLISECONDS.toNanos(intervalMillis) - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
                continue; // re-check: close() may have come in between
            }
            lastSyncNanos = System.nanoTime();
            try {
                syncTo(written);
            } catch (StoreException e) {
                return; // the log is failed; waiters see it
            }
        }
    }

    @Override
    public void close() {
        if (log.failure() == null && policy != FsyncPolicy.NEVER) {
            try {
                syncTo(written);
            } catch (StoreException ignored) {
                // reported to writers already
            }
        }
        closed = true;
        if (syncer != null) {
            LockSupport.unpark(syncer);
            try {
                syncer.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (waiters) {
            waiters.notifyAll();
        }
    }
}
