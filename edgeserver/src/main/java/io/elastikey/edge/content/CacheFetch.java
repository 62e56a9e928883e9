// CacheFetch -- the one origin request of a flight: a miss, or the revalidation of a stale entry.
package io.elastikey.edge.content;

import io.elastikey.edge.content.CachedResponse.Field;
import io.elastikey.edge.content.Flights.Flight;
import io.elastikey.edge.content.Flights.Outcome;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Fetches a GET for the cache and decides what it means (RFC 9111 4.3, RFC 5861):
 * <ul>
 *   <li>the request goes without the client's {@code If-None-Match} / {@code If-Modified-Since}, and with the stale
 *       entry's validators when there is one, so the answer is a whole 200 (stored) or a 304;
 *   <li>a 304 to a revalidation refreshes the entry's headers and freshness: {@code REVALIDATED}, stored body;
 *   <li>a failure (no connection, timeout) or a 5xx while the entry is within {@code stale-if-error}: the entry,
 *       {@code STALE};
 *   <li>anything else: the origin's answer, {@code MISS}, stored when the rules allow.
 * </ul>
 * The outcome goes to the flight's waiters first, then to the leading client when there is one (a background
 * revalidation under {@code stale-while-revalidate} has none). Runs on the loop the origin call completes on.
 */
final class CacheFetch {
    private final ContentCache cache;
    private final Flight flight;
    private final byte[] key;
    private final CachedResponse entry;
    private final Reply reply;
    private final HttpHeaders requestHeaders;

    /**
     * @param entry the stale entry to revalidate, or null for a miss
     * @param reply the leading client, or null for a background revalidation
     */
    CacheFetch(ContentCache cache, Flight flight, byte[] key, CachedResponse entry, Reply reply,
               HttpHeaders requestHeaders) {
        this.cache = cache;
        this.flight = flight;
        this.key = key;
        this.entry = entry;
        this.reply = reply;
        this.requestHeaders = requestHeaders;
    }

    /** Sends the conditional or whole request; {@code request} stays the caller's. */
    void start(OriginClient origin, FullHttpRequest request, SocketAddress client, EventLoop loop) {
        FullHttpRequest toOrigin = request.replace(request.content().retainedDuplicate());
        try {
            Conditionals.forOrigin(toOrigin.headers(), entry);
            origin.fetch(toOrigin, client, loop).whenComplete((response, failure) -> {
                if (loop.inEventLoop()) {
                    finish(response, failure);
                    return;
                }
                try {
                    loop.execute(() -> finish(response, failure));
                } catch (RejectedExecutionException shuttingDown) {
                    finish(response, failure); // the waiters must hear the end either way
                }
            });
        } finally {
            toOrigin.release();
        }
    }

    private void finish(FullHttpResponse response, Throwable failure) {
        Outcome outcome;
        try {
            outcome = decide(response, failure);
        } catch (RuntimeException e) {
            if (response != null && response.refCnt() > 0) {
                response.release();
            }
            outcome = new Outcome(null, ContentHandler.MISS, List.of(), false, e);
        }
        if (entry != null && reply != null) {
            cache.countStale(outcome.verdict()); // a background revalidation's request was counted as STALE
        }
        flight.finish(outcome, linger);
        if (reply == null) {
            if (outcome.response() != null) {
                outcome.response().release();
            }
        } else if (outcome.failure() != null) {
            reply.sendFailure(outcome.failure(), outcome.verdict());
        } else {
            reply.send(outcome.response(), outcome.verdict(), outcome.fromOrigin(), true);
        }
    }

    /** Whether the flight stays open until the cache writer has stored the answer ({@link Flight#close}). */
    private boolean linger;

    private Outcome decide(FullHttpResponse response, Throwable failure) {
        long now = cache.now();
        int status = response == null ? 0 : response.status().code();
        if ((failure != null || status >= 500) && entry != null && entry.servableOnError(now)) {
            if (response != null) {
                response.release();
            }
            return stored(entry, ContentHandler.STALE, now);
        }
        if (failure != null) {
            return new Outcome(null, ContentHandler.MISS, List.of(), false, failure);
        }
        if (status == 304 && entry != null) {
            CachedResponse refreshed = cache.refresh(key, entry, response.headers(), requestHeaders, flight::close);
            linger = true;
            response.release();
            return stored(refreshed, ContentHandler.REVALIDATED, now);
        }
        linger = cache.store(key, HttpMethod.GET, requestHeaders, response, flight::close);
        List<Field> vary = ContentCache.shareable(HttpMethod.GET, requestHeaders, response, now);
        if (vary == null) {
            // Not for sharing: the waiters fetch their own; the leader still gets it.
            return new Outcome(response, ContentHandler.MISS, null, true, null);
        }
        return new Outcome(response, ContentHandler.MISS, vary, true, null);
    }

    private static Outcome stored(CachedResponse entry, String verdict, long now) {
        return new Outcome(entry.toResponse(HttpVersion.HTTP_1_1, false, now), verdict, entry.vary, false, null);
    }
}
