package io.elastikey.keyserver.http;

import io.elastikey.keyserver.tls.ClientAuthenticationHandler;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.protocol.tickets.TicketKeySet;
import io.elastikey.protocol.http.AnswerPlace;
import io.elastikey.protocol.http.OversizedRequestAggregator;
import io.elastikey.protocol.http.RequestChecks;
import io.elastikey.protocol.http.ResponseSequencer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiJson;
import io.elastikey.protocol.ski.SkiRequest;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * The application step of the pipeline: checks the HTTP envelope ({@code POST /}, JSON),
 * decodes the SKI request, hands it to the {@link SkiService} and writes the answer in
 * request order (HTTP/1.1) or on the request's own stream (HTTP/2, {@link Http2Requests}).
 * One instance per connection.
 *
 * <p>The same endpoint also answers {@code GET /ticket-keys}, the session-ticket keys edges share
 * ({@link TicketKeyService}), in the same order as everything else on the connection.
 */
final class SkiHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(SkiHttpHandler.class);

    private final SkiService service;
    private final RequestLog requestLog;
    private final long deadlineNanos;
    private final boolean revealDenied;
    private final ProtocolErrorHandler errors;
    private final TicketKeyService ticketKeys;
    private final ResponseSequencer sequencer = new ResponseSequencer();

    /**
     * @param revealDenied whether a key the caller is not granted is answered {@code request denied}; otherwise
     *                     {@code spki not found}, exactly as an unknown key is
     */
    SkiHttpHandler(SkiService service, RequestLog requestLog, long deadlineNanos, boolean revealDenied,
                   ProtocolErrorHandler errors, TicketKeyService ticketKeys) {
        this.ticketKeys = ticketKeys;
        this.service = service;
        this.requestLog = requestLog;
        this.deadlineNanos = deadlineNanos;
        this.revealDenied = revealDenied;
        this.errors = errors;
    }

    /** {@code request}'s place: its stream's over HTTP/2; over HTTP/1.1 the next in line. */
    private AnswerPlace placeOf(FullHttpRequest request, boolean closeAfter) {
        if (request instanceof AnswerPlace onItsStream) {
            return onItsStream;
        }
        return sequencer.reserve(closeAfter);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (sequencer.closing()) {
            return; // the connection's last answer is out; it closes after a short linger
        }
        long start = System.nanoTime();
        Caller caller = ClientAuthenticationHandler.caller(ctx.channel());
        HttpVersion version = RequestChecks.answerVersion(request);
        if (request.decoderResult().isFailure()) {
            rejectUndecodable(ctx, request, caller, start);
            return;
        }
        HttpResponseStatus lineProblem = RequestChecks.requestLineProblem(request, ProtocolNegotiator.MAX_REQUEST_LINE);
        if (lineProblem != null) {
            errors.report(ctx.channel(), ProtocolErrorKind.HTTP1, "request line refused with " + lineProblem);
            answerError(ctx, placeOf(request, true), HttpVersion.HTTP_1_1, lineProblem, SkiError.MALFORMED_REQUEST,
                    caller, null, start);
            return;
        }
        AnswerPlace place = placeOf(request, !HttpUtil.isKeepAlive(request));
        if (OversizedRequestAggregator.hasUnknownExpectation(request)) {
            // Its body was read whole (OversizedRequestAggregator), so the connection can go on.
            answerError(ctx, place, version, HttpResponseStatus.EXPECTATION_FAILED, SkiError.MALFORMED_REQUEST,
                    caller, null, start);
            return;
        }
        String path = RequestChecks.pathOf(request.uri());
        if (path.equals(TicketKeySet.PATH)) {
            answerTicketKeys(ctx, place, version, request, caller);
            return;
        }
        HttpResponseStatus envelopeProblem = envelopeProblem(request, path);
        if (envelopeProblem != null) {
            answerError(ctx, place, version, envelopeProblem, SkiError.MALFORMED_REQUEST, caller, null, start);
            return;
        }
        SkiRequest ski;
        try {
            ski = SkiJson.decodeRequest(request.content());
        } catch (SkiException e) {
            log.debug("malformed request from {}: {}", caller.name(), e.getMessage());
            answerError(ctx, place, version, null, e.error(), caller, null, start);
            return;
        }
        service.execute(caller, ski, start + deadlineNanos).whenComplete((output, failure) -> {
            if (ctx.executor().inEventLoop()) {
                answer(ctx, place, version, caller, ski, output, failure, start);
            } else {
                ctx.executor().execute(() -> answer(ctx, place, version, caller, ski, output, failure, start));
            }
        });
    }

    private void answer(ChannelHandlerContext ctx, AnswerPlace place, HttpVersion version, Caller caller,
                        SkiRequest ski, byte[] output, Throwable failure, long start) {
        if (failure == null) {
            place.complete(ctx, SkiAnswers.output(ctx.alloc(), version, output));
            requestLog.answered(caller, ski.method(), ski.spki(), null, System.nanoTime() - start);
            return;
        }
        SkiError error = SkiException.errorOf(failure);
        if (error == SkiError.UNSPECIFIED_ERROR) {
            log.warn("{} from {} on {} failed: {}", ski.method().wireName(), caller.name(), ski.spki(),
                    failure instanceof SkiException ? failure.getMessage() : failure.toString());
        }
        answerError(ctx, place, version, null, error, caller, ski, start);
    }

    /**
     * {@code GET /ticket-keys}: the set as JSON, or {@code 403 request denied} to a caller the policy does not grant
     * {@code allow tickets} (never {@code spki not found}: no key's existence is at stake). Not a key operation, so
     * not in the request metrics; the keys themselves are never logged.
     */
    private void answerTicketKeys(ChannelHandlerContext ctx, AnswerPlace place, HttpVersion version,
                                  FullHttpRequest request, Caller caller) {
        if (!request.method().equals(HttpMethod.GET)) {
            FullHttpResponse refused = SkiAnswers.error(ctx.alloc(), version, HttpResponseStatus.METHOD_NOT_ALLOWED,
                    SkiError.MALFORMED_REQUEST);
            refused.headers().set(HttpHeaderNames.ALLOW, "GET");
            place.complete(ctx, refused);
            return;
        }
        try {
            place.complete(ctx, SkiAnswers.json(ctx.alloc(), version, ticketKeys.answer(caller)));
            log.debug("ticket keys to {}", caller.name());
        } catch (SkiException e) {
            log.info("ticket keys refused: {}", e.getMessage());
            place.complete(ctx, SkiAnswers.error(ctx.alloc(), version, e.error()));
        }
    }

    /** Answers {@code error}; the request log gets the true reason even where the client is told another. */
    private void answerError(ChannelHandlerContext ctx, AnswerPlace place, HttpVersion version,
                             HttpResponseStatus status, SkiError error, Caller caller, SkiRequest ski, long start) {
        SkiError told = error == SkiError.REQUEST_DENIED && !revealDenied ? SkiError.SPKI_NOT_FOUND : error;
        FullHttpResponse response = status == null
                ? SkiAnswers.error(ctx.alloc(), version, told)
                : SkiAnswers.error(ctx.alloc(), version, status, told);
        if (status == HttpResponseStatus.METHOD_NOT_ALLOWED) {
            response.headers().set(HttpHeaderNames.ALLOW, "POST");
        }
        place.complete(ctx, response);
        requestLog.answered(caller, ski == null ? null : ski.method(), ski == null ? null : ski.spki(), error,
                System.nanoTime() - start);
    }

    /**
     * A request the HTTP codec could not parse (400, 414, 431), or that did not arrive in time (408,
     * {@link io.elastikey.protocol.http.RequestReadTimer}): answer once, then close, since the stream is out of
     * sync; a body over the limit ({@link OversizedRequestAggregator}) may leave the connection open
     * ({@link RequestChecks#closesAfterUndecodable}).
     */
    private void rejectUndecodable(ChannelHandlerContext ctx, FullHttpRequest request, Caller caller, long start) {
        Throwable cause = request.decoderResult().cause();
        HttpResponseStatus status = RequestChecks.undecodable(cause);
        if (RequestChecks.isProtocolError(cause)) {
            errors.report(ctx.channel(), ProtocolErrorKind.HTTP1, status + ": " + ProtocolErrorKind.describe(cause));
        }
        AnswerPlace place = placeOf(request, RequestChecks.closesAfterUndecodable(request));
        answerError(ctx, place, HttpVersion.HTTP_1_1, status, SkiError.MALFORMED_REQUEST, caller, null, start);
    }

    /**
     * Why the HTTP envelope is not an SKI request, as the status to answer; {@code null} when it is one. The path
     * is checked before the method, so that a path that names nothing is 404 whatever the method, as on any server.
     */
    private static HttpResponseStatus envelopeProblem(FullHttpRequest request, String path) {
        if (!path.equals("/")) {
            return HttpResponseStatus.NOT_FOUND;
        }
        if (!request.method().equals(HttpMethod.POST)) {
            return HttpResponseStatus.METHOD_NOT_ALLOWED;
        }
        String type = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (type != null && !isJson(type)) {
            return HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE;
        }
        return null;
    }

    /** Whether a Content-Type names JSON: {@code application/json}, parameters such as a charset allowed. */
    private static boolean isJson(String contentType) {
        int semicolon = contentType.indexOf(';');
        String mediaType = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
        return mediaType.strip().equalsIgnoreCase("application/json");
    }


    /** Exceptions go on to the {@link ProtocolErrorHandler} at the end of the pipeline. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        sequencer.discardRemaining();
        super.channelInactive(ctx);
    }
}
