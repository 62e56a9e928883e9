// ReaderEpochs -- lets the store free an in-memory table only after every reader has left it.
package io.elastikey.store.elastic.hot;

import java.lang.ref.WeakReference;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Epoch-based reclamation. The in-memory table lives in native memory that {@code close()} frees,
 * so a reader must never be inside a table being closed. Each thread announces the epoch in which
 * it entered (one volatile write to its own slot, no shared counter to contend on);
 * {@link #synchronize()}, called after the old table is unpublished, advances the epoch and waits
 * until no thread is still inside an older one.
 *
 * <p>Reentrant: nested sections of one thread count as one; the outermost exit leaves.
 */
public final class ReaderEpochs {

    private final AtomicLong epoch = new AtomicLong(1);
    private final CopyOnWriteArrayList<Slot> slots = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Slot> mine = ThreadLocal.withInitial(this::register);

    /** Marks this thread as reading; returns the slot to pass to {@link #exit}. */
    public Slot enter() {
        Slot s = mine.get();
        if (s.depth++ == 0) {
            s.active = epoch.get();
        }
        return s;
    }

    public void exit(Slot s) {
        if (--s.depth == 0) {
            s.active = 0;
        }
    }

    /** Waits until every thread that entered before this call has exited. */
    public void synchronize() {
        long now = epoch.incrementAndGet();
        for (Slot s : slots) {
            int spins = 0;
            for (long a = s.active; a != 0 && a < now; a = s.active) {
                if (s.owner.get() == null) {
                    break; // the thread died; its slot can never be exited
                }
                if (++spins < 100) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
        slots.removeIf(s -> s.owner.get() == null);
    }

    /**
     * The non-blocking half of {@link #synchronize()}, for memory retired while readers run (a table's old slot
     * array): call after unpublishing it, keep the number, and free it once {@link #noReaderBefore} says so.
     */
    public long advance() {
        return epoch.incrementAndGet();
    }

    /** Whether no thread is still inside a section it entered before {@link #advance()} returned {@code epoch}. */
    public boolean noReaderBefore(long epoch) {
        for (Slot s : slots) {
            long a = s.active;
            if (a != 0 && a < epoch && s.owner.get() != null) {
                return false;
            }
        }
        return true;
    }

    private Slot register() {
        Slot s = new Slot(Thread.currentThread());
        slots.add(s);
        return s;
    }

    /** One thread's announcement, padded against false sharing with its neighbours. */
    public static final class Slot {
        @SuppressWarnings("unused")
        private long p1, p2, p3, p4, p5, p6, p7;
        private volatile long active;
        /** Nesting depth; touched only by the owning thread. */
        private int depth;
        @SuppressWarnings("unused")
        private long q1, q2, q3, q4, q5, q6, q7;
        private final WeakReference<Thread> owner;

        Slot(Thread owner) {
            this.owner = new WeakReference<>(owner);
        }
    }
}
