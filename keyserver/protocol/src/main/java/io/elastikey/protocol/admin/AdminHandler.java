package io.elastikey.protocol.admin;

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
import io.netty.handler.codec.http.QueryStringDecoder;

import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Answers the admin endpoint's three paths: {@code /metrics} (Prometheus text format),
 * {@code /healthz} (the process is up) and {@code /readyz} (keys, TLS and listeners are ready
 * and the server is not draining). Anything else is a 404; anything but GET or HEAD a 405.
 */
@Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Supplier<String> scrape;
    private final BooleanSupplier ready;

    AdminHandler(Supplier<String> scrape, BooleanSupplier ready) {
        this.scrape = scrape;
        this.ready = ready;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean head = request.method().equals(HttpMethod.HEAD);
        if (!head && !request.method().equals(HttpMethod.GET)) {
            respond(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "use GET\n", false);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        switch (path) {
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

    private static void respond(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status,
                                String contentType, String body, boolean head) {
        ByteBuf content = ctx.alloc().buffer();
        int length = content.writeCharSequence(body, StandardCharsets.UTF_8);
        if (head) {
            content.clear();
        }
        FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        var future = ctx.writeAndFlush(response);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
