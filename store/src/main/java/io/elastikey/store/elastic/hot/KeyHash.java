// KeyHash -- a fast 64-bit hash of a byte-string key, for the frequency sketch and lock striping.
package io.elastikey.store.elastic.hot;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads the key eight bytes at a time and mixes with multiply-xorshift steps (the finalizer of
 * SplitMix64). Not cryptographic: the store's keys are chosen by its operators, and a collision
 * costs only a slightly wrong frequency estimate.
 */
public final class KeyHash {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long SEED = 0x9E3779B97F4A7C15L;

    private KeyHash() {
    }

    public static long hash64(byte[] key) {
        long h = SEED ^ key.length;
        int i = 0;
        for (; i + 8 <= key.length; i += 8) {
            h = mix(h ^ (long) LONGS.get(key, i));
        }
        long tail = 0;
        for (int shift = 0; i < key.length; i++, shift += 8) {
            tail |= (key[i] & 0xFFL) << shift;
        }
        return mix(h ^ tail ^ 0x5851F42D4C957F2DL);
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
