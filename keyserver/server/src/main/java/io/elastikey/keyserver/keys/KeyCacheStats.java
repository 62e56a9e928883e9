// KeyCacheStats -- how well the parsed-key cache works: hits, misses, evictions, size in entries and bytes.
package io.elastikey.keyserver.keys;

/**
 * A snapshot of the parsed-key cache, for metrics. A hit is a {@link KeyRepository#find} answered from memory; a
 * miss went to the store (and, for a known key, unsealed and parsed it). With the cache disabled every find is a
 * miss.
 *
 * @param hits          finds answered from the cache
 * @param misses        finds that read the store
 * @param evictions     keys dropped to stay within the capacity
 * @param notAdmitted   misses answered without caching the key, because the cache was full ({@link KeyCache})
 * @param entries       parsed keys held now, each once whatever names it is asked for by
 * @param names         certificate SHA-1s and Subject Key Identifiers held for those keys ({@link KeyCache})
 * @param bytes         their estimated memory, heap and native ({@link KeyFootprint}), names included
 * @param capacityBytes the configured bound; 0 when the cache is disabled
 */
public record KeyCacheStats(long hits, long misses, long evictions, long notAdmitted, long entries, long names,
                            long bytes, long capacityBytes) {
    /** Hits over all finds, or 0 before the first find. */
    public double hitRatio() {
        long total = hits + misses;
        return total == 0 ? 0 : (double) hits / total;
    }
}
