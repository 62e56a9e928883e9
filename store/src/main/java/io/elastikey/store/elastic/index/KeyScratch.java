// KeyScratch -- a per-thread buffer that lets Chronicle Map look a key up without allocating.
package io.elastikey.store.elastic.index;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Chronicle Map's {@code queryContext(byte[])} wraps the array in a new heap store on every call
 * (192 bytes of garbage per lookup, measured). Copying the key into a per-thread array that is
 * wrapped once, and querying by (store, offset, length), looks the same key up with none.
 */
public final class KeyScratch {

    private static final ThreadLocal<KeyScratch> MINE = ThreadLocal.withInitial(KeyScratch::new);

    private byte[] array = new byte[256];
    private BytesStore<?, ?> store = BytesStore.wrap(array);

    private KeyScratch() {
    }

    /** This thread's scratch holding {@code key} at offset 0; valid until the thread's next call. */
    public static BytesStore<?, ?> of(byte[] key) {
        KeyScratch s = MINE.get();
        if (s.array.length < key.length) {
            s.array = new byte[Math.max(key.length, s.array.length * 2)];
            s.store = BytesStore.wrap(s.array);
        }
        System.arraycopy(key, 0, s.array, 0, key.length);
        return s.store;
    }
}
