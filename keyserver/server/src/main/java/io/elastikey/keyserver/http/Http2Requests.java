// Http2Requests -- an HTTP/2 connection's requests gathered from their streams' frames, and their answers written back.
package io.elastikey.keyserver.http;

import io.elastikey.protocol.http.AnswerPlace;
import io.elastikey.protocol.http.ConnectionFlush;
import io.elastikey.protocol.http.RequestReadTimer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpContentException;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamEvent;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.ReferenceCountUtil;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sits right after the HTTP/2 frame codec of a key-server connection and hands {@link SkiHttpHandler}, next in the
 * same pipeline, one {@link StreamRequest} per stream; the handler's answer comes back here and leaves as that
 * stream's frames. No child channel per stream: an SKI exchange is one small request and one small answer, and the
 * {@code Http2MultiplexHandler} way (a channel, a pipeline of five handlers, their promises, per stream) was work
 * on the event loops that the client side dropped first ({@code Http2Exchanges}).
 *
 * <p>What the per-stream pipeline did, this class does:
 * <ul>
 *   <li>the headers become an HTTP/1-style request by Netty's own conversion and its checks (a stream whose
 *       pseudo-headers do not make a request is a protocol error, and is reset);</li>
 *   <li>the body is gathered up to {@code limits.body}; a request that declares or sends more is answered
 *       {@code 413} by the SKI handler, as over HTTP/1.1, and audited;</li>
 *   <li>{@code Expect: 100-continue} on a body that fits gets an interim {@code 100};</li>
 *   <li>a request must arrive whole within {@code timeouts.request-read} of its first HEADERS frame, or is answered
 *       {@code 408}; the clock is only started for a stream still unfinished when a read ends, so the usual request
 *       (HEADERS and DATA in one read) schedules nothing;</li>
 *   <li>received DATA is given back to the flow-control windows at once;</li>
 *   <li>a stream the client resets, or the codec ends with a stream error, is forgotten and its answer dropped.</li>
 * </ul>
 * An answer to a request not fully received ({@code 408}, {@code 413}) is followed by {@code RST_STREAM} with
 * {@code NO_ERROR} (RFC 9113, 8.1): the client stops sending, the connection's other streams go on. Answers are
 * flushed once per turn of the loop ({@link ConnectionFlush}). Confined to the connection's event loop.
 */
final class Http2Requests extends Http2ChannelDuplexHandler {
    private final int maxBodyBytes;
    private final long requestReadNanos;
    private final ProtocolErrorHandler errors;
    private final Map<Http2FrameStream, Gathering> gathering = new IdentityHashMap<>();
    /** Streams begun in the current read whose request is not whole yet; their clocks start when the read ends. */
    private final List<Gathering> begun = new ArrayList<>();
    private ChannelHandlerContext ctx;

    Http2Requests(int maxBodyBytes, Duration requestRead, ProtocolErrorHandler errors) {
        this.maxBodyBytes = maxBodyBytes;
        this.requestReadNanos = requestRead.toNanos();
        this.errors = errors;
    }

    @Override
    protected void handlerAdded0(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Http2StreamFrame frame) || frame.stream() == null) {
            ReferenceCountUtil.release(msg); // SETTINGS, PING, GOAWAY: the codec has acted on them
            return;
        }
        try {
            if (msg instanceof Http2HeadersFrame headers) {
                onHeaders(headers);
            } else if (msg instanceof Http2DataFrame data) {
                onData(data);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHeaders(Http2HeadersFrame frame) {
        Http2FrameStream stream = frame.stream();
        Gathering request = gathering.get(stream);
        if (request != null) {
            if (frame.isEndStream()) {
                finish(request); // trailers end the request; their fields are not used
            }
            return;
        }
        HttpRequest head;
        long declared;
        try {
            head = HttpConversionUtil.toHttpRequest(stream.id(), frame.headers(), true);
            declared = HttpUtil.getContentLength(head, -1L); // the codec has checked it; never trust twice
        } catch (Http2Exception | RuntimeException e) { // missing pseudo-headers, a method with a space...
            errors.report(ctx.channel(), ProtocolErrorKind.HTTP2, ProtocolErrorKind.describe(e));
            reset(stream, Http2Error.PROTOCOL_ERROR);
            return;
        }
        request = new Gathering(stream, head);
        if (frame.isEndStream()) {
            dispatch(request.whole(Unpooled.EMPTY_BUFFER, true));
            return;
        }
        gathering.put(stream, request);
        if (declared > maxBodyBytes) {
            refuseOversized(request);
            return;
        }
        if (HttpUtil.is100ContinueExpected(head)) {
            Http2Headers interim = new DefaultHttp2Headers().status(HttpResponseStatus.CONTINUE.codeAsText());
            ctx.write(new DefaultHttp2HeadersFrame(interim, false).stream(stream));
        }
        begun.add(request);
    }

    private void onData(Http2DataFrame frame) {
        Http2FrameStream stream = frame.stream();
        int flowControlled = frame.initialFlowControlledBytes();
        if (flowControlled > 0 && stream.state() != Http2Stream.State.CLOSED) {
            ctx.write(new DefaultHttp2WindowUpdateFrame(flowControlled).stream(stream));
        }
        Gathering request = gathering.get(stream);
        if (request == null) {
            return; // a stream already answered (413) or refused
        }
        if (request.bodyBytes() + frame.content().readableBytes() > maxBodyBytes) {
            refuseOversized(request);
            return;
        }
        request.add(frame.content(), ctx);
        if (frame.isEndStream()) {
            finish(request);
        }
    }

    private void finish(Gathering request) {
        gathering.remove(request.stream);
        request.stopClock();
        dispatch(request.whole(null, true));
    }

    private void refuseOversized(Gathering request) {
        standIn(request, new TooLongHttpContentException("request body over " + maxBodyBytes + " bytes"));
    }

    /** Hands the SKI handler a bodiless request that stands for one that cannot be served, to answer with an error. */
    private void standIn(Gathering request, Throwable why) {
        gathering.remove(request.stream);
        request.stopClock();
        request.discardBody();
        StreamRequest standIn = request.whole(Unpooled.EMPTY_BUFFER, false);
        standIn.setDecoderResult(DecoderResult.failure(why));
        dispatch(standIn);
    }

    private void dispatch(StreamRequest request) {
        ctx.fireChannelRead(request);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        for (Gathering request : begun) {
            if (gathering.get(request.stream) == request) {
                request.startClock();
            }
        }
        begun.clear();
        ctx.fireChannelReadComplete();
    }

    private void expire(Gathering request) {
        if (gathering.get(request.stream) != request || !ctx.channel().isActive()) {
            return;
        }
        standIn(request, RequestReadTimer.reportExpiry(errors, ctx.channel(), requestReadNanos));
    }

    /**
     * Writes {@code response} on {@code stream} and takes ownership of it; {@code requestUnfinished}: the client has
     * not sent the whole request (the stream's own state says so only after the frame that ends it has been read).
     * A stream the client has reset meanwhile gets nothing.
     */
    private void answer(Http2FrameStream stream, FullHttpResponse response, boolean requestUnfinished) {
        try {
            if (!ctx.channel().isActive() || stream.state() == Http2Stream.State.CLOSED) {
                return;
            }
            ByteBuf body = response.content();
            boolean bodyless = !body.isReadable();
            ctx.write(new DefaultHttp2HeadersFrame(HttpConversionUtil.toHttp2Headers(response, false), bodyless)
                    .stream(stream));
            if (!bodyless) {
                ctx.write(new DefaultHttp2DataFrame(body.retain(), true).stream(stream));
            }
            if (requestUnfinished) {
                // Answered before the request was whole: the client may stop sending (RFC 9113, 8.1). The answer's
                // DATA waits in the flow controller until a flush, and the reset would drop it: flush it first.
                ctx.flush();
                reset(stream, Http2Error.NO_ERROR);
                return;
            }
            ConnectionFlush.flushSoon(ctx.channel());
        } finally {
            response.release();
        }
    }

    private void reset(Http2FrameStream stream, Http2Error error) {
        if (stream.state() != Http2Stream.State.CLOSED) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(error).stream(stream));
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof Http2FrameStreamEvent change) { // no handler after this one has streams to tell
            if (change.stream().state() == Http2Stream.State.CLOSED) {
                forget(change.stream()); // reset by the client, or closed by the codec
            }
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    /**
     * A stream error the codec found (DATA after the end of the stream, a content-length the DATA does not match...):
     * counted and logged like any protocol error, and the stream reset with its error code; the codec leaves that to
     * whoever handles {@link Http2FrameStreamException}. The connection stays up. Connection errors go on to the
     * {@link ProtocolErrorHandler}.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (cause instanceof Http2FrameStreamException streamError) {
            forget(streamError.stream());
            errors.report(ctx.channel(), ProtocolErrorKind.HTTP2, ProtocolErrorKind.describe(cause));
            reset(streamError.stream(), streamError.error());
            return;
        }
        super.exceptionCaught(ctx, cause);
    }

    private void forget(Http2FrameStream stream) {
        Gathering request = gathering.remove(stream);
        if (request != null) {
            request.stopClock();
            request.discardBody();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        for (Gathering request : gathering.values()) {
            request.stopClock();
            request.discardBody();
        }
        gathering.clear();
        begun.clear();
        super.channelInactive(ctx);
    }

    /** One stream's request while its frames arrive. */
    private final class Gathering {
        final Http2FrameStream stream;
        final HttpRequest head;
        /** The body so far: {@code null}, the first DATA frame's bytes, or a composite of several. */
        private ByteBuf body;
        private ScheduledFuture<?> clock;

        Gathering(Http2FrameStream stream, HttpRequest head) {
            this.stream = stream;
            this.head = head;
        }

        int bodyBytes() {
            return body == null ? 0 : body.readableBytes();
        }

        void add(ByteBuf data, ChannelHandlerContext ctx) {
            if (!data.isReadable()) {
                return;
            }
            if (body == null) {
                body = data.retain(); // a body in one frame is read from that frame, without a copy
            } else {
                CompositeByteBuf joined = body instanceof CompositeByteBuf composite ? composite
                        : ctx.alloc().compositeBuffer().addComponent(true, body);
                body = joined.addComponent(true, data.retain());
            }
        }

        void discardBody() {
            ReferenceCountUtil.release(body);
            body = null;
        }

        /**
         * The request with its body ({@code bodyOrNull}, or what was gathered), which goes with it;
         * {@code received}: whether the client has sent all of it.
         */
        StreamRequest whole(ByteBuf bodyOrNull, boolean received) {
            ByteBuf content = bodyOrNull != null ? bodyOrNull : body != null ? body : Unpooled.EMPTY_BUFFER;
            body = null;
            return new StreamRequest(this, content, received);
        }

        void startClock() {
            if (clock == null) {
                clock = ctx.executor().schedule(() -> expire(this), requestReadNanos, TimeUnit.NANOSECONDS);
            }
        }

        void stopClock() {
            if (clock != null) {
                clock.cancel(false);
                clock = null;
            }
        }
    }

    /** A whole request of one stream, answered on that stream. */
    final class StreamRequest extends DefaultFullHttpRequest implements AnswerPlace {
        private final Http2FrameStream stream;
        private final boolean received;

        private StreamRequest(Gathering gathered, ByteBuf content, boolean received) {
            super(gathered.head.protocolVersion(), gathered.head.method(), gathered.head.uri(), content,
                    gathered.head.headers(), EmptyHttpHeaders.INSTANCE);
            this.stream = gathered.stream;
            this.received = received;
        }

        @Override
        public void complete(ChannelHandlerContext ignored, FullHttpResponse response) {
            answer(stream, response, !received);
        }
    }
}
