// Flights -- request coalescing: concurrent misses for one cache key wait for one origin fetch.
package io.elastikey.edge.content;

import io.elastikey.edge.content.CachedResponse.Field;
import io.netty.handler.codec.http.FullHttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One origin fetch per cache key at a time. The first request to miss (or to find an entry that must be
 * revalidated) leads a {@link Flight}; requests for the same key that arrive before it lands become its waiters
 * and are handed its {@link Outcome}; so are those that arrive after it landed and before the cache writer has
 * stored it (the flight lingers until then, holding a copy). The map is shared by every event loop; a flight ends on its leader's loop and
 * each waiter finishes on its own.
 *
 * <p>Waiting is bounded by the leader's origin request, which ends by {@code origin.timeout} at the latest. What a
 * waiter gets:
 * <ul>
 *   <li>the leader's answer when a shared cache may store it (so it could have been served to this client
 *       anyway) and its {@code Vary} values match the waiter's; or the stored entry, refreshed by a 304 or served
 *       stale under {@code stale-if-error};
 *   <li>the same 502/503/504 when the origin could not be reached or did not answer in time;
 *   <li>otherwise (no-store, private, Set-Cookie, another variant, a 5xx from the origin) nothing: it makes its own
 *       origin request, alone.
 * </ul>
 */
final class Flights {
    private final ConcurrentHashMap<ByteBuffer, Flight> flights = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();

    /** A request waiting on a flight; {@link #deliver} is called on the leader's thread, once. */
    interface Waiter {
        /** Takes ownership of {@code outcome.response()} (a copy of the leader's), which may be null. */
        void deliver(Outcome outcome);
    }

    /**
     * How a flight ended.
     *
     * @param response the answer to share (the leader keeps it; each waiter gets a duplicate), or null when it may
     *     not be shared or the fetch failed
     * @param verdict the {@code X-Cache} value: {@code MISS}, {@code REVALIDATED} or {@code STALE}
     * @param vary the request values the answer was selected with ({@code Vary}); empty when it does not vary;
     *     null when the answer is not for sharing (waiters then get no response)
     * @param fromOrigin whether {@code response} is the origin's (headers still to clean) or built from the cache
     * @param failure why the fetch failed, or null
     */
    record Outcome(FullHttpResponse response, String verdict, List<Field> vary, boolean fromOrigin,
                   Throwable failure) {
        private Outcome forWaiter() {
            return new Outcome(response == null || vary == null ? null : response.retainedDuplicate(), verdict, vary,
                    fromOrigin,
                    failure);
        }
    }

    /**
     * One fetch in progress, then, when its answer is being stored, a short while more: until the cache writer has
     * stored it ({@link #close}), requests that missed join and get the answer at once instead of fetching again.
     */
    final class Flight {
        private final ByteBuffer key;
        private final List<Waiter> waiters = new ArrayList<>();
        private boolean done;
        private boolean closed;
        /** After {@link #finish} with linger: the flight's own copy of the outcome, until {@link #close}. */
        private Outcome held;

        private Flight(ByteBuffer key) {
            this.key = key;
        }

        /** Adds a waiter, or hands it the landed outcome; false when the flight is over. */
        private boolean add(Waiter w) {
            Outcome ready;
            synchronized (this) {
                if (closed) {
                    return false;
                }
                if (!done) {
                    waiters.add(w);
                    waiting.incrementAndGet();
                    return true;
                }
                ready = held.forWaiter();
            }
            w.deliver(ready);
            return true;
        }

        /**
         * Ends the fetch: every waiter gets its own copy of {@code outcome}. With {@code linger}, and an outcome
         * for sharing, later requests for the key get one too until {@link #close}; otherwise later requests start
         * a new flight. Call before editing {@code outcome.response()}; the caller keeps it.
         */
        void finish(Outcome outcome, boolean linger) {
            List<Waiter> all;
            boolean over;
            synchronized (this) {
                done = true;
                all = List.copyOf(waiters);
                waiters.clear();
                if (linger && !closed && outcome.response() != null && outcome.vary() != null) {
                    held = outcome.forWaiter();
                } else {
                    closed = true;
                }
                over = closed;
            }
            if (over) {
                flights.remove(key, this);
            }
            waiting.addAndGet(-all.size());
            for (Waiter w : all) {
                w.deliver(outcome.forWaiter());
            }
        }

        /** The answer is stored (or will not be): later requests look it up. Any thread; idempotent. */
        void close() {
            Outcome h;
            synchronized (this) {
                closed = true;
                h = held;
                held = null;
            }
            flights.remove(key, this);
            if (h != null && h.response() != null) {
                h.response().release();
            }
        }
    }

    /** Starts a flight for {@code key} that the caller leads, or adds {@code waiter} to the one in progress (null). */
    Flight leadOrJoin(byte[] key, Waiter waiter) {
        ByteBuffer k = ByteBuffer.wrap(key);
        while (true) {
            Flight mine = new Flight(k);
            Flight current = flights.putIfAbsent(k, mine);
            if (current == null) {
                return mine;
            }
            if (current.add(waiter)) {
                return null;
            }
            flights.remove(k, current); // it just ended; the next round starts a new one
        }
    }

    /** Starts a flight for {@code key} unless one is in progress (then null): a background revalidation. */
    Flight leadIfIdle(byte[] key) {
        ByteBuffer k = ByteBuffer.wrap(key);
        Flight mine = new Flight(k);
        return flights.putIfAbsent(k, mine) == null ? mine : null; // a lingering flight: the answer is being stored
    }

    /** Requests waiting on a flight now. */
    int waiting() {
        return waiting.get();
    }
}
