// SampleOriginHandler -- the sample origin's paths: one method per kind of answer.
package io.elastikey.edge.origin;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Answers {@link SampleOrigin}'s paths; see there for the list. Stateless but for the shared request count. */
@Sharable
final class SampleOriginHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final int MAX_BYTES = 16 << 20;
    static final long MAX_SLOW_MILLIS = 30_000;
    private static final String PAGE = "<!doctype html>\n<html><head><title>Elastikey sample origin</title></head>"
            + "<body><h1>Elastikey sample origin</h1><p>Served through the edge.</p></body></html>\n";

    private final AtomicLong requests;

    SampleOriginHandler(AtomicLong requests) {
        this.requests = requests;
    }

    static byte byteAt(int i) {
        return (byte) (i * 31 + (i >>> 8));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        requests.incrementAndGet();
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String path = query.path();
        HttpMethod method = request.method();
        boolean readOnly = method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD);
        if (path.equals("/echo")) {
            send(ctx, request, echo(request), "no-store");
        } else if (!readOnly) {
            send(ctx, request, text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET and HEAD here\n"), null);
        } else if (path.equals("/slow")) {
            long ms = Math.min(MAX_SLOW_MILLIS, Math.max(0, number(query.parameters().get("ms"), 0)));
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            boolean head = method.equals(HttpMethod.HEAD);
            ctx.executor().schedule(() -> write(ctx, keepAlive, head, text(HttpResponseStatus.OK, "slow " + ms + "\n"),
                    "no-store"), ms, TimeUnit.MILLISECONDS);
        } else {
            answerGet(ctx, request, path);
        }
    }

    /** A client that resets its connection is routine for a server; nothing to report. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private void answerGet(ChannelHandlerContext ctx, FullHttpRequest request, String path) {
        if (path.equals("/")) {
            FullHttpResponse r = text(HttpResponseStatus.OK, PAGE);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
            send(ctx, request, r, "public, max-age=60");
        } else if (path.equals("/hello")) {
            FullHttpResponse r = text(HttpResponseStatus.OK, "hello from the elastikey sample origin\n");
            r.headers().set(HttpHeaderNames.ETAG, "\"hello-1\"");
            send(ctx, request, r, "max-age=60");
        } else if (path.equals("/healthz")) {
            // A container's health check (docker/bin/healthcheck), as the key server and the edge have one.
            send(ctx, request, text(HttpResponseStatus.OK, "ok\n"), "no-store");
        } else if (path.equals("/time")) {
            send(ctx, request, text(HttpResponseStatus.OK, Instant.now() + "\n"), "max-age=1");
        } else if (path.equals("/nostore")) {
            send(ctx, request, text(HttpResponseStatus.OK, "never stored\n"), "no-store");
        } else if (path.equals("/private")) {
            send(ctx, request, text(HttpResponseStatus.OK, "for one user only\n"), "private, max-age=60");
        } else if (path.equals("/vary")) {
            String lang = request.headers().get(HttpHeaderNames.ACCEPT_LANGUAGE, "none");
            FullHttpResponse r = text(HttpResponseStatus.OK, "lang=" + lang + "\n");
            r.headers().set(HttpHeaderNames.VARY, HttpHeaderNames.ACCEPT_LANGUAGE);
            send(ctx, request, r, "max-age=60");
        } else if (path.equals("/close")) {
            FullHttpResponse r = text(HttpResponseStatus.OK, "closing\n");
            boolean head = request.method().equals(HttpMethod.HEAD);
            write(ctx, false, head, r, "no-store");
        } else if (path.startsWith("/bytes/")) {
            int n = (int) number(List.of(path.substring(7)), -1);
            send(ctx, request, n < 0 || n > MAX_BYTES ? notFound() : bytes(ctx, n), "max-age=60");
        } else if (path.startsWith("/status/")) {
            int code = (int) number(List.of(path.substring(8)), -1);
            FullHttpResponse r = code < 200 || code > 599 ? notFound()
                    : text(HttpResponseStatus.valueOf(code), code == 204 || code == 304 ? "" : "status " + code + "\n");
            send(ctx, request, r, "max-age=60");
        } else {
            send(ctx, request, notFound(), null);
        }
    }

    private static FullHttpResponse echo(FullHttpRequest request) {
        StringBuilder b = new StringBuilder().append(request.method()).append(' ').append(request.uri()).append('\n');
        for (String name : List.of("host", "x-forwarded-for", "x-forwarded-proto", "via", "connection", "te")) {
            b.append(name).append(": ").append(request.headers().get(name, "-")).append('\n');
        }
        b.append('\n').append(request.content().toString(UTF_8));
        return text(HttpResponseStatus.OK, b.toString());
    }

    private static FullHttpResponse bytes(ChannelHandlerContext ctx, int n) {
        ByteBuf body = ctx.alloc().buffer(n);
        for (int i = 0; i < n; i++) {
            body.writeByte(byteAt(i));
        }
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        return r;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response,
                             String cacheControl) {
        boolean head = request.method().equals(HttpMethod.HEAD);
        write(ctx, HttpUtil.isKeepAlive(request), head, response, cacheControl);
    }

    /** Sets the length and caching headers, drops the body of a HEAD answer, and writes. */
    private static void write(ChannelHandlerContext ctx, boolean keepAlive, boolean head, FullHttpResponse response,
                              String cacheControl) {
        int length = response.content().readableBytes();
        FullHttpResponse out = response;
        if (head) {
            out = response.replace(Unpooled.EMPTY_BUFFER);
            response.release();
        }
        out.headers().set(HttpHeaderNames.CONTENT_LENGTH, length)
                .set(HttpHeaderNames.SERVER, "elastikey-sample-origin");
        if (cacheControl != null) {
            out.headers().set(HttpHeaderNames.CACHE_CONTROL, cacheControl);
        }
        HttpUtil.setKeepAlive(out, keepAlive);
        var written = ctx.writeAndFlush(out);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static FullHttpResponse notFound() {
        return text(HttpResponseStatus.NOT_FOUND, "not found\n");
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body) {
        ByteBuf content = Unpooled.copiedBuffer(body, UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return r;
    }

    /** The first value as a non-negative number, or {@code otherwise}. */
    private static long number(List<String> values, long otherwise) {
        if (values == null || values.isEmpty() || values.get(0).isEmpty() || values.get(0).length() > 9) {
            return otherwise;
        }
        for (char c : values.get(0).toCharArray()) {
            if (c < '0' || c > '9') {
                return otherwise;
            }
        }
        return Long.parseLong(values.get(0));
    }
}
