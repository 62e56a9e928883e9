// ContentCacheStats -- a snapshot of the content cache's counters, for the edge's metrics.
package io.elastikey.edge.content;

/**
 * Counters since the cache was opened; take two snapshots and subtract for a rate. Only GET and HEAD requests
 * that may use the cache (no {@code Authorization}, no request {@code no-store}) count as hits or misses.
 *
 * @param hits lookups answered with a fresh stored response
 * @param misses lookups that found nothing usable: absent, expired, damaged, or another {@code Vary} variant
 * @param stores responses written to the store
 * @param droppedStores storable responses not written because the write queue was full
 * @param expired stored responses found past their lifetime, by a lookup or the periodic sweep, and deleted
 * @param uncacheable responses the shared-cache rules or the entry size limit kept out of the cache
 * @param corrupt stored values that failed to decode or read back, counted as misses and deleted
 * @param entries entries in the store now, or -1 once the cache is closed
 */
public record ContentCacheStats(long hits, long misses, long stores, long droppedStores, long expired,
                                long uncacheable, long corrupt, long entries) {
}
