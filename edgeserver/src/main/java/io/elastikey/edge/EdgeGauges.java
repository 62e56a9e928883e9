package io.elastikey.edge;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.content.ContentCache;
import io.elastikey.edge.content.ContentCacheStats;
import io.elastikey.edge.tls.EdgeTls;

import java.util.function.ToDoubleFunction;

/** Registers the meters read from other parts at scrape time: certificates served, the content cache's counts. */
final class EdgeGauges {
    private EdgeGauges() {
    }

    static void bind(EdgeMetrics metrics, EdgeTls tls, ContentCache cache) {
        metrics.gauge("elastikey.edge.certificates", "Certificate chains the edge serves", tls,
                t -> t.registry().size());
        metrics.gauge("elastikey.edge.certificates.rejected", "Files in the certificate directory that were skipped",
                tls, t -> t.registry().rejected());
        if (cache == null) {
            return;
        }
        cacheCounter(metrics, cache, "hits", "Requests answered from the cache", ContentCacheStats::hits);
        cacheCounter(metrics, cache, "misses", "Cacheable requests the cache could not answer",
                ContentCacheStats::misses);
        cacheCounter(metrics, cache, "stale", "Requests answered with a stale entry (stale-while-revalidate, "
                + "stale-if-error)", ContentCacheStats::stale);
        cacheCounter(metrics, cache, "revalidated", "Requests answered with a stale entry the origin confirmed (304)",
                ContentCacheStats::revalidated);
        cacheCounter(metrics, cache, "coalesced", "Requests that used another request's origin fetch of the same URL",
                ContentCacheStats::coalesced);
        cacheCounter(metrics, cache, "purged", "Entries deleted by purges on the admin endpoint",
                ContentCacheStats::purged);
        cacheCounter(metrics, cache, "stores", "Answers written to the cache", ContentCacheStats::stores);
        cacheCounter(metrics, cache, "dropped", "Cache writes dropped because the writer was behind",
                ContentCacheStats::droppedStores);
        cacheCounter(metrics, cache, "expired", "Entries found or swept after their freshness ran out",
                ContentCacheStats::expired);
        cacheCounter(metrics, cache, "uncacheable", "Answers not stored (no-store, private, no lifetime, too large)",
                ContentCacheStats::uncacheable);
        metrics.gauge("elastikey.edge.cache.entries", "Entries in the content cache", cache,
                c -> c.stats().entries());
        metrics.gauge("elastikey.edge.cache.bytes", "Bytes of the content cache's files on disk", cache,
                c -> c.stats().bytes());
        metrics.gauge("elastikey.edge.cache.hit.ratio", "Requests answered with a stored body (hit, stale, revalidated) "
                + "over all cacheable requests, since start", cache, c -> {
                    ContentCacheStats s = c.stats();
                    long served = s.hits() + s.stale() + s.revalidated();
                    long lookups = served + s.misses();
                    return lookups == 0 ? 0 : (double) served / lookups;
                });
    }

    private static void cacheCounter(EdgeMetrics metrics, ContentCache cache, String name, String description,
                                     ToDoubleFunction<ContentCacheStats> value) {
        metrics.counter("elastikey.edge.cache." + name, description, cache, c -> value.applyAsDouble(c.stats()));
    }
}
