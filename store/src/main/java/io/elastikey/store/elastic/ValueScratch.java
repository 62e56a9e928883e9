// ValueScratch -- reusable buffers for a thread that copies many stored values: the resizer.
package io.elastikey.store.elastic;

import java.nio.ByteBuffer;

/**
 * A resize copies every entry it moves: a 4 KB value per entry meant a 4 KB array per entry, over a gigabyte of
 * garbage for a gigabyte moved, and the young collections that followed (a 2-4 ms pause every 140 ms) were the
 * lookups' p99 during a scale-up. The copy goes through here instead: one buffer as big as the largest value, and
 * arrays reused by length, since the memory tier's put takes a {@code byte[]} of exactly the value's length and
 * values mostly come in a few sizes (keys of one type seal to one size).
 *
 * <p>Owned by one thread. An array handed out is valid until the next call for the same length.
 */
final class ValueScratch {
    private static final int SLOTS = 64;

    private final ByteBuffer buffer;
    private final byte[][] arrays = new byte[SLOTS][];

    ValueScratch(int maxValueSize) {
        this.buffer = ByteBuffer.allocateDirect(maxValueSize);
    }

    /** The buffer, cleared: room for any value the store accepts. */
    ByteBuffer buffer() {
        return buffer.clear();
    }

    /** An array of exactly {@code length} bytes, the same one as last time for this length when it is still cached. */
    byte[] array(int length) {
        int slot = length & (SLOTS - 1);
        byte[] a = arrays[slot];
        if (a == null || a.length != length) {
            a = new byte[length];
            arrays[slot] = a;
        }
        return a;
    }
}
