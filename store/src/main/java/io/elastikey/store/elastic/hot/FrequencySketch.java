// FrequencySketch -- approximate access counts for every key in a few bytes per key (count-min, 4-bit).
package io.elastikey.store.elastic.hot;

/**
 * A count-min sketch of 4-bit counters, the TinyLFU idea (Einziger, Friedman and Manes, "TinyLFU:
 * A Highly Efficient Cache Admission Policy", 2017) as Caffeine uses it: each key increments one
 * counter in each of four rows, its estimate is the smallest of the four, and after every
 * {@code 10 x width} increments all counters are halved so that old popularity fades.
 *
 * <p>Counters saturate at 15. Sixteen counters are packed in a long; the table has a power-of-two
 * number of longs, about one counter per expected key per row. A key's four counters lie in one
 * 64-byte block of eight longs (two longs per row; the hash picks the block, then per row one of
 * the two longs and one of its sixteen counters), so counting a lookup costs one cache miss, not
 * four: the sketch is on every lookup's path, and at a million keys its table is megabytes.
 *
 * <p>Thread safety: increments are plain read-modify-writes, so two threads racing on one word may
 * lose an increment. That only makes an estimate a little low, which a sketch tolerates, and it
 * keeps the lookup path free of atomics.
 */
public final class FrequencySketch {

    private static final long ODD_MASK = 0x7777777777777777L; // clears each counter's top bit after a shift
    private static final long SEED = 0xC3A5C85C97CB3127L;

    private final long[] table;
    private final int blockMask;
    private final int sampleSize;
    private int additions;
    private boolean counted;

    /** Sized for about {@code expectedKeys} distinct keys. */
    public FrequencySketch(long expectedKeys) {
        int words = (int) Math.min(1 << 26, Math.max(64, Long.highestOneBit(Math.max(1, expectedKeys / 4)) * 2));
        this.table = new long[words];
        this.blockMask = words / 8 - 1;
        this.sampleSize = (int) Math.min(Integer.MAX_VALUE, 10L * words * 16 / 4);
    }

    /** Counts one access to the key with this hash. */
    public void increment(long hash) {
        long h = KeyHash.mix(hash ^ SEED);
        int block = blockOf(h);
        boolean added = false;
        for (int row = 0; row < 4; row++) {
            int bits = (int) (h >>> (row << 3));
            int word = block + (row << 1) + (bits & 1);
            int shift = ((bits >>> 1) & 15) << 2;
            long w = table[word];
            if (((w >>> shift) & 0xF) != 0xF) {
                table[word] = w + (1L << shift);
                added = true;
            }
        }
        if (!counted) {
            counted = true; // written once, not on every count: the field shares a cache line with the table's
        }
        if (added && ++additions >= sampleSize) {
            halve();
        }
    }

    /** The estimated access count of the key with this hash, 0 to 15. */
    public int frequency(long hash) {
        long h = KeyHash.mix(hash ^ SEED);
        int block = blockOf(h);
        int min = 15;
        for (int row = 0; row < 4; row++) {
            int bits = (int) (h >>> (row << 3));
            int shift = ((bits >>> 1) & 15) << 2;
            min = Math.min(min, (int) ((table[block + (row << 1) + (bits & 1)] >>> shift) & 0xF));
        }
        return min;
    }

    /** The first long of the key's block: chosen by the high half of the mixed hash, rows use the low half. */
    private int blockOf(long mixed) {
        return ((int) (mixed >>> 32) & blockMask) << 3;
    }

    /**
     * Whether any access was ever counted. A resize right after opening asks, so it need not walk a million index
     * entries to learn that every frequency is 0. Racy by design: a count that lands meanwhile changes nothing.
     */
    public boolean hasCounts() {
        return counted;
    }

    /** Ages every counter by half. */
    private void halve() {
        additions = 0;
        for (int i = 0; i < table.length; i++) {
            table[i] = (table[i] >>> 1) & ODD_MASK;
        }
    }
}
