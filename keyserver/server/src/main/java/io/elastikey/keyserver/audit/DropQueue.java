// DropQueue -- a bounded multi-producer queue whose offer never blocks: when full it refuses, and the caller counts.
package io.elastikey.keyserver.audit;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lock-free bounded queue for event-loop threads that must never wait: {@link ConcurrentLinkedQueue} (lock-free,
 * FIFO) plus a counter of reserved slots. {@link #offer} reserves a slot with one atomic increment and gives it
 * back if the queue was full, so a full queue costs two atomics and no allocation. The bound is exact: at most
 * {@code capacity} elements are ever held. Elements offered by one thread are polled in the order offered.
 *
 * <p>Any number of threads may offer; any number may poll, though the audit log polls from one.
 */
final class DropQueue<T> {
    private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    DropQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, not " + capacity);
        }
        this.capacity = capacity;
    }

    /** Adds {@code element} unless the queue is full; returns whether it was added. Never blocks. */
    boolean offer(T element) {
        if (size.getAndIncrement() >= capacity) {
            size.getAndDecrement();
            return false;
        }
        queue.offer(element);
        return true;
    }

    /** The oldest element, or {@code null} when there is none. */
    T poll() {
        T element = queue.poll();
        if (element != null) {
            size.getAndDecrement();
        }
        return element;
    }

    /** Elements held or being added right now; a moment's estimate when other threads are busy. */
    int size() {
        return size.get();
    }

    int capacity() {
        return capacity;
    }
}
