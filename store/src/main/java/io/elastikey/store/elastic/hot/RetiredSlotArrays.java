// RetiredSlotArrays -- slot arrays a rebuild replaced, freed once no reader can still be probing them.
package io.elastikey.store.elastic.hot;

import java.util.ArrayDeque;

/**
 * A table's rebuild publishes a new {@link SlotArray} while readers, who take no lock, may still be probing the old
 * one. The old one is kept here with the epoch of its unpublishing and freed once the store's {@link ReaderEpochs}
 * show that every reader who could have loaded it has left: checked on the table's later writes and at its close,
 * so no writer waits for a reader. Not thread-safe: the owning table's writer lock guards it.
 */
final class RetiredSlotArrays {

    private final ReaderEpochs epochs;
    private final ArrayDeque<Retired> retired = new ArrayDeque<>();

    /** An array unpublished when {@code epoch} began. */
    private record Retired(SlotArray slots, long epoch) {
    }

    RetiredSlotArrays(ReaderEpochs epochs) {
        this.epochs = epochs;
    }

    /** Takes an array the caller has just unpublished (a volatile write of its successor came first). */
    void retire(SlotArray old) {
        retired.add(new Retired(old, epochs.advance()));
    }

    /** Frees, oldest first, the arrays no reader can be in any more. */
    void reclaim() {
        while (!retired.isEmpty() && epochs.noReaderBefore(retired.peekFirst().epoch())) {
            retired.pollFirst().slots().free();
        }
    }

    /** Arrays retired and not yet freed. */
    int count() {
        return retired.size();
    }

    /** Native bytes of the arrays not yet freed. */
    long bytes() {
        long n = 0;
        for (Retired r : retired) {
            n += r.slots().bytes();
        }
        return n;
    }

    /** Frees every array at once; the caller guarantees that no reader is inside any of them. */
    void freeAll() {
        for (Retired r : retired) {
            r.slots().free();
        }
        retired.clear();
    }
}
