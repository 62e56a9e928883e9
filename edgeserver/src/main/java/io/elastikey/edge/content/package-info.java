/**
 * The edge's content path: after TLS and HTTP decoding, each request is answered from a shared cache or by
 * reverse-proxying it to the one origin the edge fronts.
 *
 * <h2>Path of a request</h2>
 * <pre>
 *   ContentHandler      GET/HEAD allowed to use the cache?  StorePolicy.bypasses
 *     ContentCache      lookup: CacheKeys -> KeyValueStore.get (-> VaryIndex -> variant) -> CachedResponse.decode
 *                       fresh: HIT, Reply.sendStored (+ Age; Conditionals may make it a 304)
 *                       stale within stale-while-revalidate: STALE, and a background CacheFetch
 *     Flights           otherwise (GET): lead a flight, or wait for the one in progress
 *     CacheFetch        the leader: Conditionals.forOrigin -> OriginClient -> 304: ContentCache.refresh
 *                       (REVALIDATED); failure or 5xx within stale-if-error: STALE; else store (MISS)
 *     OriginClient      OriginPool of the caller's event loop -> OriginConnectionHandler
 *     ContentCache      store: StorePolicy.freshness + size -> CacheWriter (own thread) -> KeyValueStore.put
 * </pre>
 *
 * <h2>Threads</h2>
 * A request is read, looked up, proxied and answered on the event loop of its client connection (a request that
 * waits on another's flight is answered on its own loop, from a duplicate of the leader's answer): the origin
 * connections it uses belong to that loop ({@link io.elastikey.edge.content.OriginClient}), and cache lookups run
 * inline because the store's hot tier is memory. Only cache writes leave the loop, for one bounded writer thread
 * that drops rather than blocks.
 *
 * <h2>Buffers</h2>
 * {@link io.elastikey.edge.content.ContentHandler} releases each request when it returns; the origin client keeps
 * a retained view of the body until its call ends. The origin's answer goes to the client as it came (headers
 * edited in place); the cache takes a retained view of its body and copies it once, on the writer thread. A hit's
 * body is a view of the array the store returned. No body is copied on an event loop.
 *
 * <h2>What is not done</h2>
 * No heuristic freshness, no coalescing of HEAD or of requests with {@code Range} or preconditions, and no bound on
 * the store's disk use other than expiry.
 */
package io.elastikey.edge.content;
