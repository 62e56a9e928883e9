package io.elastikey.protocol.admin;

import io.elastikey.protocol.http.LingeringClose;
import io.netty.buffer.ByteBuf;
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
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Answers the admin endpoint's three paths: {@code /metrics} (Prometheus text format),
 * {@code /healthz} (the process is up) and {@code /readyz} (keys, TLS and listeners are ready
 * and the server is not draining), plus the server's {@link AdminRoute}s. Anything else is a 404;
 * a method a path does not take, a 405.
 */
@Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Supplier<String> scrape;
    private final BooleanSupplier ready;
    private final Map<String, AdminRoute> routes = new HashMap<>();

    AdminHandler(Supplier<String> scrape, BooleanSupplier ready, List<AdminRoute> routes) {
        this.scrape = scrape;
        this.ready = ready;
        for (AdminRoute r : routes) {
            if (List.of("/metrics", "/healthz", "/readyz").contains(r.path()) || this.routes.put(r.path(), r) != null) {
                throw new IllegalArgumentException("admin path " + r.path() + " is taken");
            }
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            refuse(ctx, request.decoderResult().cause());
            return;
        }
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        AdminRoute route = routes.get(query.path());
        if (route != null) {
            route(ctx, request, route, query);
            return;
        }
        boolean head = request.method().equals(HttpMethod.HEAD);
        if (!head && !request.method().equals(HttpMethod.GET)) {
            respond(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "use GET\n", false);
            return;
        }
        switch (query.path()) {
            case "/metrics" -> respond(ctx, request, HttpResponseStatus.OK, PROMETHEUS_TEXT, scrape.get(), head);
            case "/healthz" -> respond(ctx, request, HttpResponseStatus.OK, "text/plain", "ok\n", head);
            case "/readyz" -> {
                boolean isReady = ready.getAsBoolean();
                respond(ctx, request, isReady ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "text/plain", isReady ? "ready\n" : "not ready\n", head);
            }
            default -> respond(ctx, request, HttpResponseStatus.NOT_FOUND, "text/plain",
                    "not found; try /metrics, /healthz or /readyz\n", head);
        }
    }

    private static void route(ChannelHandlerContext ctx, FullHttpRequest request, AdminRoute route,
                              QueryStringDecoder query) {
        if (!request.method().name().equals(route.method())) {
            respond(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "use " + route.method() + "\n",
                    false);
            return;
        }
        CompletableFuture<AdminRoute.Reply> reply;
        try {
            reply = route.handler().handle(query.parameters());
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        FullHttpRequest kept = request.retainedDuplicate();
        reply.whenComplete((r, failure) -> {
            try {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause == null) {
                    respond(ctx, kept, HttpResponseStatus.valueOf(r.status()), r.contentType(), r.body(), false);
                } else if (cause instanceof IllegalArgumentException) {
                    respond(ctx, kept, HttpResponseStatus.BAD_REQUEST, "text/plain", cause.getMessage() + "\n", false);
                } else {
                    respond(ctx, kept, HttpResponseStatus.INTERNAL_SERVER_ERROR, "text/plain",
                            "failed: " + cause + "\n", false);
                }
            } finally {
                kept.release();
            }
        });
    }

    private static void respond(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status,
                                String contentType, String body, boolean head) {
        FullHttpResponse response = response(ctx, request.protocolVersion(), status, contentType, body, head);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        var future = ctx.writeAndFlush(response);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** {@code body} as {@code contentType}, its length set (and the body left out for a HEAD). */
    private static FullHttpResponse response(ChannelHandlerContext ctx, HttpVersion version, HttpResponseStatus status,
                                             String contentType, String body, boolean head) {
        ByteBuf content = ctx.alloc().buffer();
        int length = content.writeCharSequence(body, StandardCharsets.UTF_8);
        if (head) {
            content.clear();
        }
        FullHttpResponse response = new DefaultFullHttpResponse(version, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        return response;
    }

    /**
     * What the codec could not read (a header past 8 KiB, a request line that is not HTTP) is answered as such, not
     * routed as if it were a request, and the connection closes once the client stops sending.
     */
    private static void refuse(ChannelHandlerContext ctx, Throwable cause) {
        HttpResponseStatus status = cause instanceof TooLongHttpHeaderException
                ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                : cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                : HttpResponseStatus.BAD_REQUEST;
        FullHttpResponse response = response(ctx, HttpVersion.HTTP_1_1, status, "text/plain",
                status.reasonPhrase().toLowerCase(Locale.ROOT) + "\n", false);
        HttpUtil.setKeepAlive(response, false);
        ctx.writeAndFlush(response).addListener(f -> LingeringClose.begin(ctx));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
