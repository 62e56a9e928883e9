// RequestReadTimer -- a request's head and body must arrive within a timeout of its first byte.
package io.elastikey.protocol.http;

import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Closes what a slow client keeps open. The idle timeout does not: a client that sends one byte every few seconds is
 * never idle, and without this a few thousand such connections hold the server's connection limit with almost no
 * traffic (slowloris). Each request must arrive whole, head and body, within {@code timeouts.request-read} of its
 * first byte:
 *
 * <ul>
 *   <li>HTTP/1.1 ({@link #installHttp1}): the clock starts when bytes arrive while no request is under way, and stops
 *       at the request's last content. When it runs out, the application receives a stand-in request whose decoder
 *       result is a {@link RequestReadTimeoutException}; it answers {@code 408} in request order and closes. (Bytes
 *       of a next request that came in the same read as the end of the one before start the clock only with the
 *       next read; such a connection is held by the idle timeout at most.)
 *   <li>HTTP/2 streams ({@link #http2Stream}): from the stream's first HEADERS frame to its end, answered the same
 *       way, which resets the stream and leaves the connection's other streams alone.
 *   <li>HTTP/2 connections ({@link Http2FrameTracker}): a frame, or a header block split into CONTINUATION frames,
 *       left unfinished that long closes the connection (with GOAWAY), since no stream exists to answer on.
 * </ul>
 * Each expiry is counted and logged as a {@link ProtocolErrorKind#TIMEOUT} protocol error.
 *
 * <p>Confined to the channel's event loop, like the handlers it serves.
 */
public final class RequestReadTimer {
    private final long timeoutNanos;
    private final ProtocolErrorHandler errors;
    private final BiConsumer<ChannelHandlerContext, RequestReadTimeoutException> onExpiry;
    private ChannelHandlerContext ctx;
    /** The armed check; it may belong to an earlier request, and then re-arms for this one's remainder. */
    private ScheduledFuture<?> pending;
    /** Whether a request is under way. */
    private boolean running;
    /** How much later than the armed check the current request's time runs out. */
    private long beyondCheckNanos;
    private boolean expired;

    RequestReadTimer(Duration timeout, ProtocolErrorHandler errors,
                     BiConsumer<ChannelHandlerContext, RequestReadTimeoutException> onExpiry) {
        this.timeoutNanos = timeout.toNanos();
        this.errors = errors;
        this.onExpiry = onExpiry;
    }

    /**
     * Adds the two halves of the HTTP/1.1 timer around the codec named {@code codec}: one before it that sees the
     * bytes arrive, one after it that sees each request end.
     */
    public static void installHttp1(ChannelPipeline pipeline, String codec, Duration timeout,
                                    ProtocolErrorHandler errors) {
        RequestReadTimer timer = new RequestReadTimer(timeout, errors, RequestReadTimer::answerTimedOut);
        pipeline.addBefore(codec, "request-arrival", timer.new Arrivals());
        pipeline.addAfter(codec, "request-end", timer.new Completions(false));
    }

    /** The timer of one HTTP/2 stream, running from now: add it to the stream's pipeline after its HTTP codec. */
    public static ChannelHandler http2Stream(Duration timeout, ProtocolErrorHandler errors) {
        return new RequestReadTimer(timeout, errors, RequestReadTimer::answerTimedOut).new Completions(true);
    }

    /** The connection-level timer of HTTP/2: add it before the HTTP/2 codec. */
    public static ChannelHandler http2Connection(Duration timeout, ProtocolErrorHandler errors) {
        return new Http2FrameTracker(new RequestReadTimer(timeout, errors, (ctx, cause) -> ctx.close()));
    }

    /**
     * Counts and logs one request that did not arrive whole within {@code timeoutNanos} of its first byte, and returns
     * the decoder failure that stands for it. Public for the HTTP/2 request gatherer that keeps a clock per stream
     * itself, so that both report an expiry alike.
     */
    public static RequestReadTimeoutException reportExpiry(ProtocolErrorHandler errors, Channel channel,
                                                           long timeoutNanos) {
        errors.report(channel, ProtocolErrorKind.TIMEOUT, "request not complete within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms of its first byte");
        return new RequestReadTimeoutException("request not complete in time");
    }

    /** Hands the application a request that stands for the one that did not arrive, to be answered 408. */
    private static void answerTimedOut(ChannelHandlerContext ctx, RequestReadTimeoutException cause) {
        FullHttpRequest stand = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/",
                Unpooled.EMPTY_BUFFER);
        stand.setDecoderResult(DecoderResult.failure(cause));
        ctx.fireChannelRead(stand);
    }

    void bind(ChannelHandlerContext context) {
        this.ctx = context;
    }

    /**
     * Starts the clock unless it runs already (or ran out: a connection times out once). A check still armed for an
     * earlier request is kept and told how much longer this one has: scheduling and cancelling a task per request
     * was two priority-queue operations and an allocation on every request of a busy connection, where this way a
     * connection that keeps sending whole requests arms one check per timeout. A request then runs out when the
     * re-armed check fires: as late as the event loop runs each of the two checks, as any timer is.
     */
    void start() {
        if (running || expired || ctx == null) {
            return;
        }
        running = true;
        if (pending == null) {
            beyondCheckNanos = 0;
            pending = ctx.executor().schedule(this::check, timeoutNanos, TimeUnit.NANOSECONDS);
        } else {
            beyondCheckNanos = timeoutNanos - pending.getDelay(TimeUnit.NANOSECONDS);
        }
    }

    /** Stops the clock; the armed check, if any, finds nothing running and lapses. */
    void stop() {
        running = false;
    }

    /** Stops the clock for good (the channel is closing), releasing the armed check at once. */
    void cancel() {
        running = false;
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
    }

    private void check() {
        pending = null;
        if (!running) {
            return;
        }
        if (beyondCheckNanos > 0) {
            pending = ctx.executor().schedule(this::check, beyondCheckNanos, TimeUnit.NANOSECONDS);
            beyondCheckNanos = 0;
            return;
        }
        running = false;
        expired = true;
        if (!ctx.channel().isActive()) {
            return;
        }
        onExpiry.accept(ctx, reportExpiry(errors, ctx.channel(), timeoutNanos));
    }

    /** Before the codec: bytes arriving while no request is under way start the clock. */
    private final class Arrivals extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
                start();
            }
            super.channelRead(ctx, msg);
        }
    }

    /** After the codec: the request's last content stops the clock; expiry acts from here. */
    private final class Completions extends ChannelInboundHandlerAdapter {
        private final boolean startNow;

        Completions(boolean startNow) {
            this.startNow = startNow;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            bind(ctx);
            if (startNow) {
                start();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof LastHttpContent) {
                stop();
            }
            super.channelRead(ctx, msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            cancel();
            super.channelInactive(ctx);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            cancel();
        }
    }
}
