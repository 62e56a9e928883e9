// EntryBlock -- the layout of one memory-tier entry in native memory, and its lock-free (seqlock) read.
package io.elastikey.store.elastic.hot;

import static io.elastikey.store.elastic.hot.OffHeap.BYTE_ARRAY_BASE;
import static io.elastikey.store.elastic.hot.OffHeap.U;

/**
 * One entry: a 24-byte header, the key, the value. Native byte order.
 *
 * <pre>
 *  0  long  stamp     even: stable; odd: a writer is rewriting the block. Only ever grows.
 *  8  int   capacity  the block's size, set when its chunk is carved and never changed
 * 12  int   key length K
 * 16  int   value length V
 * 20  int   (unused)
 * 24  K bytes key, then V bytes value
 * </pre>
 *
 * <h2>Reads without a lock</h2>
 * A writer rewrites a block only after it has been freed and taken again ({@link SlabArena}); it makes the stamp
 * odd, writes, and makes it even again, one higher. A reader reads the stamp, the lengths, the key and the value,
 * then the stamp again: the read stands only if both stamps are the same even number ({@link #RETRY} otherwise).
 * Lengths are checked against the capacity before any bytes past the header are touched, so even a torn read stays
 * inside the block. This is a sequence lock per entry (Lameter, "Effective synchronization on Linux/NUMA
 * systems", 2005; the Linux kernel's {@code seqcount_t}).
 */
final class EntryBlock {

    static final int HEADER = 24;
    static final long CAPACITY = 8;
    private static final long KEY_LENGTH = 12;
    private static final long VALUE_LENGTH = 16;

    /** A read that met a different key (a hash collision): keep probing. */
    static final int MISMATCH = -3;
    /** A read that overlapped a writer: start the lookup over. */
    static final int RETRY = -4;

    private EntryBlock() {
    }

    /** Bytes a block needs for this entry. */
    static int need(int keyLength, int valueLength) {
        return HEADER + keyLength + valueLength;
    }

    /** Sets up a freshly carved block: stamp 0, its capacity. */
    static void init(long block, int capacity) {
        U.putLong(block, 0L);
        U.putInt(block + CAPACITY, capacity);
    }

    /** The block's stamp, for a reader that must tell later whether the block was rewritten meanwhile. */
    static long stamp(long block) {
        return U.getLongVolatile(null, block);
    }

    static int capacity(long block) {
        return U.getInt(block + CAPACITY);
    }

    /**
     * Writes the entry into a block the caller owns (taken from the arena, not yet reachable by a new reader). The
     * value is {@code valueLength} bytes at {@code valueOffset} of {@code valueBase}, as {@code Unsafe} addresses
     * them: a {@code byte[]} and {@link OffHeap#BYTE_ARRAY_BASE}, or {@code null} and a native address
     * ({@link OffHeap#base}, {@link OffHeap#offset}), so that a value read into a direct buffer is copied once.
     */
    static void write(long block, byte[] key, Object valueBase, long valueOffset, int valueLength) {
        long stamp = U.getLong(block);
        U.putLong(block, stamp + 1);
        U.storeFence(); // the odd stamp is visible before any byte below changes
        U.putInt(block + KEY_LENGTH, key.length);
        U.putInt(block + VALUE_LENGTH, valueLength);
        U.copyMemory(key, BYTE_ARRAY_BASE, null, block + HEADER, key.length);
        U.copyMemory(valueBase, valueOffset, null, block + HEADER + key.length, valueLength);
        U.putOrderedLong(null, block, stamp + 2); // a release store: everything above is visible first
    }

    // ---- for the single writer, which owns the blocks it reads ----

    static int valueLength(long block) {
        return U.getInt(block + VALUE_LENGTH);
    }

    /** Whether the block holds {@code key}; for the writer, which needs no stamp. */
    static boolean holds(long block, byte[] key) {
        return U.getInt(block + KEY_LENGTH) == key.length && keyEquals(block + HEADER, key);
    }

    /** The block's key as a new array; for the writer. */
    static byte[] key(long block) {
        byte[] key = new byte[U.getInt(block + KEY_LENGTH)];
        U.copyMemory(null, block + HEADER, key, BYTE_ARRAY_BASE, key.length);
        return key;
    }

    // ---- for lock-free readers ----

    /**
     * Reads the value of {@code key} from {@code block}: copied to {@code dstBase}/{@code dstOffset} (an array and
     * its Unsafe offset, or null and a native address) when it is at most {@code room} bytes.
     *
     * @return the value's length, {@link #MISMATCH} (another key), or {@link #RETRY} (a writer was here)
     */
    static int read(long block, byte[] key, Object dstBase, long dstOffset, int room) {
        long stamp = U.getLongVolatile(null, block);
        if ((stamp & 1) != 0) {
            return RETRY;
        }
        int capacity = U.getInt(block + CAPACITY);
        int keyLength = U.getInt(block + KEY_LENGTH);
        int valueLength = U.getInt(block + VALUE_LENGTH);
        int result;
        if (keyLength != key.length || valueLength < 0 || (long) HEADER + keyLength + valueLength > capacity
                || !keyEquals(block + HEADER, key)) {
            result = MISMATCH;
        } else {
            if (valueLength <= room) {
                U.copyMemory(null, block + HEADER + keyLength, dstBase, dstOffset, valueLength);
            }
            result = valueLength;
        }
        U.loadFence(); // every read above happens before the stamp is read again
        return U.getLong(block) == stamp ? result : RETRY;
    }

    private static boolean keyEquals(long at, byte[] key) {
        int n = key.length;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            if (U.getLong(at + i) != U.getLong(key, BYTE_ARRAY_BASE + i)) {
                return false;
            }
        }
        for (; i < n; i++) {
            if (U.getByte(at + i) != key[i]) {
                return false;
            }
        }
        return true;
    }
}
