// UnfinishedRequests -- the server-wide budget of memory that requests still arriving may hold.
package io.elastikey.resp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Each connection may send a command of up to {@link RespLimits#maxRequestBytes} (64 MiB), and its arguments are
 * held from their headers on, so a few clients that start large commands and never finish them could fill the heap
 * between them: with a 256 MB heap, a third such connection was cut off with no reply and the server nearly ran out
 * of memory. So every argument being received is reserved here first, against one budget for the whole server, and
 * released once its command is whole (it is then answered at the server's pace) or the connection goes. A request
 * that finds the budget spent is refused with a protocol error naming it, and the server goes on serving the rest.
 * Thread-safe.
 */
final class UnfinishedRequests {
    /** A quarter of the heap: room for a few large commands at a time, never for enough to exhaust it. */
    static final long DEFAULT_BUDGET = Runtime.getRuntime().maxMemory() / 4;

    private final long budget;
    private final AtomicLong held = new AtomicLong();

    UnfinishedRequests(long budget) {
        if (budget <= 0) {
            throw new IllegalArgumentException("budget must be positive, not " + budget);
        }
        this.budget = budget;
    }

    /** Takes {@code bytes} from the budget; false, taking nothing, when that would spend more than all of it. */
    boolean reserve(long bytes) {
        long now;
        do {
            now = held.get();
            if (now + bytes > budget) {
                return false;
            }
        } while (!held.compareAndSet(now, now + bytes));
        return true;
    }

    /** Gives back {@code bytes} taken by {@link #reserve}. */
    void release(long bytes) {
        held.addAndGet(-bytes);
    }

    long held() {
        return held.get();
    }

    long budget() {
        return budget;
    }
}
