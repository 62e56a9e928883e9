// Reply -- the answer slot of one client request, and how each kind of answer is finished before it is sent.
package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.elastikey.protocol.http.ResponseSequencer;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.SocketAddress;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * Where the answer to one request goes: its connection, its place in the response order, its HTTP version and
 * headers. Every answer leaves with {@code X-Cache}, {@code Via} and a {@code Content-Length}; an answer the cache
 * chose (stored, or fetched whole for it) also gets the client's own conditionals applied, which may make it a 304.
 * Methods other than {@link #onLoop} run on the connection's event loop.
 */
final class Reply {
    private final ChannelHandlerContext ctx;
    private final ResponseSequencer queue;
    private final ResponseSequencer.Slot slot;
    private final HttpVersion version;
    private final boolean head;
    private final HttpHeaders request;

    Reply(ChannelHandlerContext ctx, ResponseSequencer queue, ResponseSequencer.Slot slot, HttpVersion version,
          boolean head, HttpHeaders request) {
        this.ctx = ctx;
        this.queue = queue;
        this.slot = slot;
        this.version = version;
        this.head = head;
        this.request = request;
    }

    HttpHeaders request() {
        return request;
    }

    SocketAddress remote() {
        return ctx.channel().remoteAddress();
    }

    EventLoop loop() {
        return ctx.channel().eventLoop();
    }

    /** Runs {@code task} on the connection's loop; false when the loop is gone (the caller then cleans up). */
    boolean onLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
            return true;
        }
        try {
            ctx.executor().execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Answers from a stored entry. */
    void sendStored(CachedResponse entry, String verdict, long now) {
        send(entry.toResponse(version, head, now), verdict, false, true);
    }

    /**
     * Sends {@code response} (taking ownership). {@code fromOrigin}: its hop-by-hop headers still need removing.
     * {@code evaluate}: apply the client's {@code If-None-Match} / {@code If-Modified-Since} to a 200.
     */
    void send(FullHttpResponse response, String verdict, boolean fromOrigin, boolean evaluate) {
        if (fromOrigin) {
            ProxyHeaders.cleanResponse(response.headers());
        } else {
            response.headers().add(HttpHeaderNames.VIA, ProxyHeaders.VIA);
        }
        response.setProtocolVersion(version);
        int status = response.status().code();
        if (fromOrigin && !head && status >= 200 && status != 204 && status != 304) {
            HttpUtil.setContentLength(response, response.content().readableBytes());
        }
        response.headers().set(ContentHandler.X_CACHE, verdict);
        FullHttpResponse out = response;
        if (evaluate && status == 200 && Conditionals.notModified(request, response.headers())) {
            out = Conditionals.notModifiedResponse(response);
        }
        queue.complete(ctx, slot, out);
    }

    /** Answers an origin failure with a 502, 503 or 504 that names no internal address. */
    void sendFailure(Throwable failure, String verdict) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        int status = cause instanceof OriginException oe ? oe.status() : 502;
        String text = switch (status) {
            case 503 -> "the origin is busy; try again shortly";
            case 504 -> "the origin did not answer in time";
            default -> "the origin could not be reached or sent a bad answer";
        };
        FullHttpResponse response = text(version, HttpResponseStatus.valueOf(status), text);
        response.headers().set(ContentHandler.X_CACHE, verdict);
        queue.complete(ctx, slot, response);
    }

    /** A one-line {@code text/plain} answer that no cache keeps. */
    static FullHttpResponse text(HttpVersion version, HttpResponseStatus status, String message) {
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
