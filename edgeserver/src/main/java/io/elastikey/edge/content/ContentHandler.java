// ContentHandler -- the edge's last handler: answers a request from the content cache or through the origin.
package io.elastikey.edge.content;

import io.elastikey.protocol.http.RequestChecks;
import io.elastikey.protocol.http.RequestReadTimeoutException;
import io.elastikey.protocol.http.ResponseSequencer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * Takes whole requests ({@code HttpServerCodec} + {@code HttpObjectAggregator} under HTTP/1.1, or
 * {@code Http2StreamFrameToHttpObjectCodec(true)} + {@code HttpObjectAggregator} on an HTTP/2 stream channel) and
 * answers each one:
 * <ul>
 *   <li>GET or HEAD that may use the cache (see {@link StorePolicy}) with a fresh stored answer: from the cache,
 *       {@code X-Cache: HIT}, with {@code Age}; the origin sees nothing.
 *   <li>GET or HEAD otherwise: from the origin, {@code X-Cache: MISS}; a storable GET answer is stored on the way.
 *   <li>Any other method, a request with {@code Authorization} or {@code Cache-Control: no-store}, or no cache:
 *       from the origin, {@code X-Cache: BYPASS}, to tell "not looked up" from "looked up and absent". An unsafe
 *       method's non-error answer also deletes what the cache holds for its URL (RFC 9111 4.4).
 * </ul>
 * Every answer carries {@code Via: 1.1 elastikey-edge} and a {@code Content-Length}, and leaves in request order
 * ({@link ResponseSequencer}); {@code Connection: close} from the client closes the connection after its answer. An
 * origin failure becomes a 502, 503 or 504 with a one-line text body that names no internal address (the log has
 * the details).
 *
 * <p>Stateless (per-connection state is a channel attribute), so one instance serves every connection and stream.
 * The request is released when {@link #channelRead0} returns; the origin client keeps its own view of the body.
 */
@Sharable
public final class ContentHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final AsciiString X_CACHE = AsciiString.cached("x-cache");
    static final String HIT = "HIT";
    static final String MISS = "MISS";
    static final String BYPASS = "BYPASS";
    /** The longest request line (HTTP/1.1) or {@code :path} (HTTP/2); longer gets 414. */
    public static final int MAX_REQUEST_LINE = 8192;

    private final ContentCache cache;
    private final OriginClient origin;
    private final ProtocolErrorHandler errors;

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
            if (!(cause instanceof RequestReadTimeoutException)) { // the timer has counted that one
                errors.report(ctx.channel(), ProtocolErrorKind.HTTP1, status + ": " + ProtocolErrorKind.describe(cause));
            }
            queue.complete(ctx, queue.reserve(true), text(HttpVersion.HTTP_1_1, status, REFUSALS.get(status.code())));
            return;
        }
        HttpResponseStatus lineProblem = RequestChecks.requestLineProblem(request, MAX_REQUEST_LINE);
        if (lineProblem != null) {
            errors.report(ctx.channel(), ProtocolErrorKind.HTTP1, "request line refused with " + lineProblem);
            queue.complete(ctx, queue.reserve(true), text(HttpVersion.HTTP_1_1, lineProblem,
                    REFUSALS.get(lineProblem.code())));
            return;
        }
        ResponseSequencer.Slot slot = queue.reserve(!HttpUtil.isKeepAlive(request));
        HttpMethod method = request.method();
        boolean head = HttpMethod.HEAD.equals(method);
        boolean safe = head || HttpMethod.GET.equals(method);
        boolean cacheable = cache != null && safe && !StorePolicy.bypasses(request.headers());
        byte[] key = cacheable || cache != null && !safe ? cache.keyOf(request) : null;
        if (cacheable) {
            CachedResponse hit = cache.lookup(key, request.headers());
            if (hit != null) {
                FullHttpResponse response = hit.toResponse(version, head, cache.now());
                response.headers().set(X_CACHE, HIT).add(HttpHeaderNames.VIA, ProxyHeaders.VIA);
                queue.complete(ctx, slot, response);
                return;
            }
        }
        Exchange exchange = new Exchange(ctx, queue, slot, version, method, request.headers(),
                cacheable ? MISS : BYPASS, cacheable && !head ? key : null, safe ? null : key);
        origin.fetch(request, ctx.channel().remoteAddress(), ctx.channel().eventLoop())
                .whenComplete(exchange::onLoop);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ResponseSequencer.of(ctx.channel()).discardRemaining();
        super.channelInactive(ctx);
    }

    // Exceptions go on to the ProtocolErrorHandler at the end of the pipeline.

    /** What the answer to a request sent to the origin needs; built on the loop, finished on the loop. */
    private final class Exchange {
        private final ChannelHandlerContext ctx;
        private final ResponseSequencer queue;
        private final ResponseSequencer.Slot slot;
        private final HttpVersion version;
        private final HttpMethod method;
        private final HttpHeaders requestHeaders;
        private final String verdict;
        private final byte[] storeKey;
        private final byte[] invalidateKey;

        Exchange(ChannelHandlerContext ctx, ResponseSequencer queue, ResponseSequencer.Slot slot, HttpVersion version,
                 HttpMethod method, HttpHeaders requestHeaders, String verdict, byte[] storeKey, byte[] invalidateKey) {
            this.ctx = ctx;
            this.queue = queue;
            this.slot = slot;
            this.version = version;
            this.method = method;
            this.requestHeaders = requestHeaders;
            this.verdict = verdict;
            this.storeKey = storeKey;
            this.invalidateKey = invalidateKey;
        }

        /** The origin client completes on the loop; this only guards against a future completed elsewhere. */
        void onLoop(FullHttpResponse response, Throwable failure) {
            if (ctx.executor().inEventLoop()) {
                answer(response, failure);
                return;
            }
            try {
                ctx.executor().execute(() -> answer(response, failure));
            } catch (RejectedExecutionException e) {
                if (response != null) {
                    response.release();
                }
            }
        }

        private void answer(FullHttpResponse response, Throwable failure) {
            if (failure != null) {
                queue.complete(ctx, slot, originFailure(version, failure, verdict));
                return;
            }
            int status = response.status().code();
            if (storeKey != null) {
                cache.store(storeKey, method, requestHeaders, response);
            } else if (invalidateKey != null && status < 400) {
                cache.invalidate(invalidateKey);
            }
            ProxyHeaders.cleanResponse(response.headers());
            response.setProtocolVersion(version);
            if (!HttpMethod.HEAD.equals(method) && status >= 200 && status != 204 && status != 304) {
                HttpUtil.setContentLength(response, response.content().readableBytes());
            }
            response.headers().set(X_CACHE, verdict);
            queue.complete(ctx, slot, response);
        }
    }

    private static FullHttpResponse originFailure(HttpVersion version, Throwable failure, String verdict) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        int status = cause instanceof OriginException oe ? oe.status() : 502;
        String text = switch (status) {
            case 503 -> "the origin is busy; try again shortly";
            case 504 -> "the origin did not answer in time";
            default -> "the origin could not be reached or sent a bad answer";
        };
        FullHttpResponse response = text(version, HttpResponseStatus.valueOf(status), text);
        response.headers().set(X_CACHE, verdict);
        return response;
    }

    /** The text of each refusal {@link RequestChecks} may choose, by status. */
    private static final Map<Integer, String> REFUSALS = Map.of(
            400, "malformed request",
            408, "the request did not arrive in time",
            413, "request body too large",
            414, "request line too long",
            431, "request headers too large",
            505, "only HTTP/1.0, HTTP/1.1 and HTTP/2 are served");

    /** A one-line {@code text/plain} answer that no cache keeps. */
    private static FullHttpResponse text(HttpVersion version, HttpResponseStatus status, String message) {
        byte[] body = (status.code() + " " + status.reasonPhrase() + ": " + message + "\n").getBytes(UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(version, status, Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .add(HttpHeaderNames.VIA, ProxyHeaders.VIA);
        return response;
    }
}
