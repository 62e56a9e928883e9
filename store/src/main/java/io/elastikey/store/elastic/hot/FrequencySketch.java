// FrequencySketch -- approximate access counts for every key in a few bytes per key (count-min, 4-bit).
package io.elastikey.store.elastic.hot;

/**
 * A count-min sketch of 4-bit counters, the TinyLFU idea (Einziger, Friedman and Manes, "TinyLFU:
 * A Highly Efficient Cache Admission Policy", 2017) as Caffeine uses it: each key increments one
 * counter in each of four rows, its estimate is the smallest of the four, and after every
 * {@code 10 x width} increments all counters are halved so that old popularity fades.
 *
 * <p>Counters saturate at 15. Sixteen counters are packed in a long; the table has a power-of-two
 * number of longs, about one counter per expected key per row.
 *
 * <p>Thread safety: increments are plain read-modify-writes, so two threads racing on one word may
 * lose an increment. That only makes an estimate a little low, which a sketch tolerates, and it
 * keeps the lookup path free of atomics.
 */
public final class FrequencySketch {

    private static final long ODD_MASK = 0x7777777777777777L; // clears each counter's top bit after a shift
    private static final long[] ROW_SEEDS = {
        0xC3A5C85C97CB3127L, 0xB492B66FBE98F273L, 0x9AE16A3B2F90404FL, 0xCBF29CE484222325L
    };

    private final long[] table;
    private final int mask;
    private final int sampleSize;
    private int additions;
    private boolean counted;

    /** Sized for about {@code expectedKeys} distinct keys. */
    public FrequencySketch(long expectedKeys) {
        int words = (int) Math.min(1 << 26, Math.max(64, Long.highestOneBit(Math.max(1, expectedKeys / 4)) * 2));
        this.table = new long[words];
        this.mask = words - 1;
        this.sampleSize = (int) Math.min(Integer.MAX_VALUE, 10L * words * 16 / 4);
    }

    /** Counts one access to the key with this hash. */
    public void increment(long hash) {
        boolean added = false;
        for (int row = 0; row < 4; row++) {
            long h = KeyHash.mix(hash ^ ROW_SEEDS[row]);
            int word = (int) h & mask;
            int shift = (int) ((h >>> 32) & 15) << 2;
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
        int min = 15;
        for (int row = 0; row < 4; row++) {
            long h = KeyHash.mix(hash ^ ROW_SEEDS[row]);
            int shift = (int) ((h >>> 32) & 15) << 2;
            min = Math.min(min, (int) ((table[(int) h & mask] >>> shift) & 0xF));
        }
        return min;
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
