// LongRing -- a FIFO of longs in one growable array: the memory tier's admission order, kept as key hashes.
package io.elastikey.store.elastic.hot;

import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * A first-in, first-out queue of primitive longs in one circular array that doubles when full. {@link HotTier}
 * keeps its admission order here as 64-bit key hashes rather than as a copy of each key on the heap: a million
 * small arrays that live as long as their entries were copied by every young collection while a resize admitted
 * them (pauses of 15-20 ms at a million 4 KB entries, docs/benchmarks.md), where one array of longs (8 MB at a
 * million) is allocated once, outside the young generation when it is large, and holds no references to trace.
 *
 * <p>Not thread-safe: the owning tier's lock guards it.
 */
final class LongRing {

    private long[] items;
    private int head;
    private int size;

    /** A ring with room for {@code capacity} items before it first grows. */
    LongRing(int capacity) {
        items = new long[Math.max(16, capacity)];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void addLast(long value) {
        if (size == items.length) {
            items = toArray(items.length * 2);
            head = 0;
        }
        items[(head + size) % items.length] = value;
        size++;
    }

    /** The oldest item; the ring must not be empty. */
    long peekFirst() {
        if (size == 0) {
            throw new IllegalStateException("empty ring");
        }
        return items[head];
    }

    /** Removes and returns the oldest item; the ring must not be empty. */
    long pollFirst() {
        long value = peekFirst();
        head = (head + 1) % items.length;
        size--;
        return value;
    }

    /** Drops every item the predicate accepts, keeping the order of the others. */
    void removeIf(LongPredicate drop) {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            long value = items[(head + i) % items.length];
            if (!drop.test(value)) {
                items[(head + kept) % items.length] = value;
                kept++;
            }
        }
        size = kept;
    }

    /** The items, oldest first, in a new array. */
    long[] toArray() {
        return toArray(size);
    }

    void clear() {
        head = 0;
        size = 0;
    }

    private long[] toArray(int length) {
        long[] out = new long[length];
        int first = Math.min(size, items.length - head);
        System.arraycopy(items, head, out, 0, first);
        System.arraycopy(items, 0, out, first, size - first);
        return out;
    }

    @Override
    public String toString() {
        return "LongRing" + Arrays.toString(toArray());
    }
}
