// CompactKey -- a private-key object that packs into a few bytes, so the parsed-key cache can hold it as one array.
package io.elastikey.keyserver.keys;

/**
 * Implemented by key objects of our own making (a P-256 key held as its bare scalar), which the parsed-key cache
 * keeps packed in one byte array with the rest of their {@link LoadedKey} ({@link PackedKey}) instead of as a graph
 * of objects: a million keys as a million small arrays leave the garbage collector little to mark. The
 * {@link PrivateKeyParser} that made the key rebuilds it ({@link PrivateKeyParser#fromCompact}).
 */
public interface CompactKey {
    /** The key's bytes, in a new array the caller owns and wipes. */
    byte[] toBytes();
}
