// KeyLookup -- what a find on behalf of a caller found: a key it may use, a key it may not, or nothing.
package io.elastikey.keyserver.keys;

/**
 * The result of {@link KeyRepository#find(String, KeyAccess)}. A denied key is not handed out: the caller gets to
 * know only that it may not use it.
 *
 * @param key    the key, unsealed; {@code null} when unknown or denied
 * @param denied whether a key exists under the identifier that the caller may not use
 */
public record KeyLookup(LoadedKey key, boolean denied) {
    public static final KeyLookup UNKNOWN = new KeyLookup(null, false);
    public static final KeyLookup DENIED = new KeyLookup(null, true);

    /** {@code key} when {@code access} permits it (by its authenticated fields), else {@link #DENIED}. */
    static KeyLookup of(LoadedKey key, KeyAccess access) {
        return access.permits(key) ? new KeyLookup(key, false) : DENIED;
    }
}
