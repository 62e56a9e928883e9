// ContentHandler -- the edge's last handler: answers a request from the content cache or through the origin.
package io.elastikey.edge.content;

import io.elastikey.protocol.http.OversizedRequestAggregator;
import io.elastikey.protocol.http.RequestChecks;
import io.elastikey.protocol.http.ResponseSequencer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AsciiString;
import java.util.Map;
import java.util.Objects;

/**
 * Takes whole requests ({@code HttpServerCodec} + {@code HttpObjectAggregator} under HTTP/1.1, or
 * {@code Http2StreamFrameToHttpObjectCodec(true)} + {@code HttpObjectAggregator} on an HTTP/2 stream channel) and
 * answers each one. The {@code X-Cache} header says how:
 * <ul>
 *   <li>{@code HIT}: a fresh stored answer, with {@code Age}; the origin sees nothing.
 *   <li>{@code STALE}: a stored answer past its freshness, served within {@code stale-while-revalidate} (one
 *       background revalidation runs meanwhile) or within {@code stale-if-error} because the origin failed.
 *   <li>{@code REVALIDATED}: a stale stored answer the origin confirmed with a 304 to a conditional request.
 *   <li>{@code MISS}: a GET or HEAD that may use the cache, answered by the origin; a storable answer is stored.
 *       Concurrent GET misses for one key make one origin request ({@link Flights}).
 *   <li>{@code BYPASS}: any other method, a request with {@code Authorization} or {@code Cache-Control: no-store},
 *       or no cache: from the origin, to tell "not looked up" from "looked up and absent". An unsafe method's
 *       non-error answer also deletes what the cache holds for its URL (RFC 9111 4.4).
 * </ul>
 * A client's {@code If-None-Match} / {@code If-Modified-Since} is answered by the edge ({@link Conditionals}) when the
 * answer comes from or through the cache: a match gives a 304. Every answer carries {@code Via: 1.1 elastikey-edge}
 * and leaves in request order ({@link ResponseSequencer}); {@code Connection: close} from the client closes the
 * connection after its answer. An origin failure becomes a 502, 503 or 504 with a one-line text body that names no
 * internal address (the log has the details).
 *
 * <p>Stateless but for the flights in progress (per-connection state is a channel attribute), so one instance serves
 * every connection and stream. The request is released when {@link #channelRead0} returns; the origin client and a
 * waiting request keep their own views.
 */
@Sharable
public final class ContentHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final AsciiString X_CACHE = AsciiString.cached("x-cache");
    static final String HIT = "HIT";
    static final String MISS = "MISS";
    static final String BYPASS = "BYPASS";
    static final String STALE = "STALE";
    static final String REVALIDATED = "REVALIDATED";
    /** The longest request line (HTTP/1.1) or {@code :path} (HTTP/2); longer gets 414. */
    public static final int MAX_REQUEST_LINE = 8192;

    /** The text of each refusal {@link RequestChecks} may choose, by status. */
    private static final Map<Integer, String> REFUSALS = Map.of(
            400, "malformed request",
            408, "the request did not arrive in time",
            413, "request body too large",
            414, "request line too long",
            417, "only the expectation 100-continue is served",
            431, "request headers too large",
            501, "only the chunked transfer coding is served",
            505, "only HTTP/1.0, HTTP/1.1 and HTTP/2 are served");

    private final ContentCache cache;
    private final OriginClient origin;
    private final ProtocolErrorHandler errors;
    private final Flights flights = new Flights();

    /**
     * @param cache  the content cache; {@code null} for none: every request goes to the origin
     *               ({@code X-Cache: BYPASS})
     * @param errors where requests the edge cannot read are counted and logged
     */
    public ContentHandler(ContentCache cache, OriginClient origin, ProtocolErrorHandler errors) {
        this.cache = cache;
        this.origin = Objects.requireNonNull(origin, "origin");
        this.errors = Objects.requireNonNull(errors, "errors");
    }

    public ContentHandler(ContentCache cache, OriginClient origin) {
        this(Objects.requireNonNull(cache, "cache"), origin, new ProtocolErrorHandler(kind -> { }));
    }

    /** Without a cache: every request goes to the origin ({@code X-Cache: BYPASS}). */
    public ContentHandler(OriginClient origin) {
        this(null, origin, new ProtocolErrorHandler(kind -> { }));
    }

    /** Requests waiting for another request's origin fetch of the same URL now (for metrics and tests). */
    public int coalescedWaiting() {
        return flights.waiting();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        ResponseSequencer queue = ResponseSequencer.of(ctx.channel());
        if (queue.closing()) {
            return;
        }
        HttpVersion version = RequestChecks.answerVersion(request);
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            HttpResponseStatus status = RequestChecks.undecodable(cause);
            if (RequestChecks.isProtocolError(cause)) {
                errors.report(ctx.channel(), ProtocolErrorKind.HTTP1, status + ": " + ProtocolErrorKind.describe(cause));
            }
            boolean close = RequestChecks.closesAfterUndecodable(request);
            queue.complete(ctx, queue.reserve(close), Reply.text(HttpVersion.HTTP_1_1, status,
                    REFUSALS.get(status.code())));
            return;
        }
        HttpResponseStatus lineProblem = RequestChecks.requestLineProblem(request, MAX_REQUEST_LINE);
        if (lineProblem == null && !(ctx.channel() instanceof Http2StreamChannel)) {
            lineProblem = RequestChecks.proxiedRequestProblem(request); // HTTP/2 framing and :authority need none
        }
        if (lineProblem != null) {
            errors.report(ctx.channel(), ProtocolErrorKind.HTTP1, "request refused with " + lineProblem);
            queue.complete(ctx, queue.reserve(true), Reply.text(HttpVersion.HTTP_1_1, lineProblem,
                    REFUSALS.get(lineProblem.code())));
            return;
        }
        if (OversizedRequestAggregator.hasUnknownExpectation(request)) {
            // Its body was read whole (OversizedRequestAggregator), so the connection can go on.
            queue.complete(ctx, queue.reserve(!HttpUtil.isKeepAlive(request)), Reply.text(version,
                    HttpResponseStatus.EXPECTATION_FAILED, REFUSALS.get(417)));
            return;
        }
        ResponseSequencer.Slot slot = queue.reserve(!HttpUtil.isKeepAlive(request));
        HttpMethod method = request.method();
        boolean head = HttpMethod.HEAD.equals(method);
        boolean safe = head || HttpMethod.GET.equals(method);
        Reply reply = new Reply(ctx, queue, slot, version, head, request.headers());
        if (cache == null || !safe || StorePolicy.bypasses(request.headers())) {
            byte[] invalidate = cache != null && !safe ? cache.keyOf(request) : null;
            forward(reply, request, null, invalidate, BYPASS);
            return;
        }
        byte[] key = cache.keyOf(request);
        long now = cache.now();
        CachedResponse entry = cache.lookup(key, request.headers(), now);
        if (entry != null && entry.isFresh(now)) {
            reply.sendStored(entry, HIT, now);
        } else if (head || !Conditionals.shareable(request.headers())) {
            if (entry != null) {
                cache.countStale(MISS);
            }
            forward(reply, request, head ? null : key, null, MISS);
        } else if (entry != null && entry.servableWhileRevalidating(now)) {
            cache.countStale(STALE);
            reply.sendStored(entry, STALE, now);
            Flights.Flight flight = flights.leadIfIdle(key);
            if (flight != null) {
                new CacheFetch(cache, flight, key, entry, null, request.headers())
                        .start(origin, request, ctx.channel().remoteAddress(), ctx.channel().eventLoop());
            }
        } else {
            Waiting waiting = new Waiting(reply, request.retainedDuplicate(), key, entry != null);
            Flights.Flight flight = flights.leadOrJoin(key, waiting);
            if (flight != null) {
                waiting.request.release();
                new CacheFetch(cache, flight, key, entry, reply, request.headers())
                        .start(origin, request, ctx.channel().remoteAddress(), ctx.channel().eventLoop());
            }
        }
    }

    /**
     * Sends {@code request} to the origin as it came and passes the answer on; stores it under {@code storeKey}
     * and invalidates {@code invalidateKey} (either may be null).
     */
    private void forward(Reply reply, FullHttpRequest request, byte[] storeKey, byte[] invalidateKey, String verdict) {
        HttpMethod method = request.method();
        origin.fetch(request, reply.remote(), reply.loop()).whenComplete((response, failure) -> {
            boolean onLoop = reply.onLoop(() -> {
                if (failure != null) {
                    reply.sendFailure(failure, verdict);
                    return;
                }
                if (storeKey != null) {
                    cache.store(storeKey, method, reply.request(), response);
                } else if (invalidateKey != null && response.status().code() < 400) {
                    cache.invalidate(invalidateKey);
                }
                reply.send(response, verdict, true, false);
            });
            if (!onLoop && response != null) {
                response.release();
            }
        });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ResponseSequencer.of(ctx.channel()).discardRemaining();
        super.channelInactive(ctx);
    }

    // Exceptions go on to the ProtocolErrorHandler at the end of the pipeline.

    /** A GET waiting for a flight; owns a duplicate of its request in case it has to fetch on its own. */
    private final class Waiting implements Flights.Waiter {
        private final Reply reply;
        private final FullHttpRequest request;
        private final byte[] key;
        private final boolean hadEntry;

        Waiting(Reply reply, FullHttpRequest request, byte[] key, boolean hadEntry) {
            this.reply = reply;
            this.request = request;
            this.key = key;
            this.hadEntry = hadEntry;
        }

        @Override
        public void deliver(Flights.Outcome outcome) {
            boolean onLoop = reply.onLoop(() -> {
                try {
                    answer(outcome);
                } finally {
                    request.release();
                }
            });
            if (!onLoop) {
                request.release();
                if (outcome.response() != null) {
                    outcome.response().release();
                }
            }
        }

        private void answer(Flights.Outcome outcome) {
            FullHttpResponse shared = outcome.response();
            if (outcome.failure() == null && (shared == null
                    || !StorePolicy.varyMatches(outcome.vary(), request.headers()))) {
                if (shared != null) {
                    shared.release();
                }
                if (hadEntry) {
                    cache.countStale(MISS);
                }
                forward(reply, request, key, null, MISS); // not for sharing: its own request, alone
                return;
            }
            cache.countCoalesced();
            if (hadEntry) {
                cache.countStale(outcome.verdict());
            }
            if (outcome.failure() != null) {
                reply.sendFailure(outcome.failure(), outcome.verdict());
            } else {
                reply.send(shared, outcome.verdict(), outcome.fromOrigin(), true);
            }
        }
    }
}
