// ContentCacheStats -- a snapshot of the content cache's counters, for the edge's metrics.
package io.elastikey.edge.content;

/**
 * Counters since the cache was opened; take two snapshots and subtract for a rate. Only GET and HEAD requests
 * that may use the cache (no {@code Authorization}, no request {@code no-store}) count as hits or misses.
 *
 * @param hits lookups answered with a fresh stored response
 * @param misses lookups that found nothing usable (absent, expired, damaged, another {@code Vary} variant), and
 *     those that found a stale entry the origin then replaced
 * @param stale requests answered with a stale entry: within {@code stale-while-revalidate}, or within
 *     {@code stale-if-error} when the origin failed
 * @param revalidated requests answered with a stale entry after the origin confirmed it with a 304
 * @param coalesced requests that waited for another request's origin fetch of the same URL and used its answer
 * @param stores responses written to the store
 * @param droppedStores storable responses not written because the write queue was full
 * @param expired stored responses found past their lifetime, by a lookup or the periodic sweep, and deleted
 * @param uncacheable responses the shared-cache rules or the entry size limit kept out of the cache
 * @param corrupt stored values that failed to decode or read back, counted as misses and deleted
 * @param purged stored responses deleted by purges from the admin endpoint
 * @param entries entries in the store now ({@code Vary} indexes included), or -1 once the cache is closed
 * @param bytes bytes of the store's files on disk (live and not yet compacted), or -1 once closed
 */
public record ContentCacheStats(long hits, long misses, long stale, long revalidated, long coalesced, long stores,
                                long droppedStores, long expired, long uncacheable, long corrupt, long purged,
                                long entries, long bytes) {
}
