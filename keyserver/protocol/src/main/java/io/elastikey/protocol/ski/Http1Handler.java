// Http1Handler -- the last handler of an HTTP/1.1 connection: writes one request, reads its answer, frees the slot.
package io.elastikey.protocol.ski;

import javax.net.ssl.SSLException;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

/**
 * Sits after {@code HttpClientCodec} and {@code HttpObjectAggregator} on one pooled connection. The pool hands it an
 * exchange only when it is free, so {@link #current} is the one request in flight, touched only on the event loop.
 * After an answer the slot goes back to the pool before the exchange completes, so the caller's next request can
 * take this connection; an answer with {@code Connection: close} closes it instead.
 */
final class Http1Handler extends ChannelInboundHandlerAdapter {
    private final Http1Pool pool;
    private final Http1Pool.Slot slot;
    private final String authority;
    private volatile ChannelHandlerContext context;
    private volatile boolean inactive;
    private Exchange<?> current;
    private Throwable lastError;

    Http1Handler(Http1Pool pool, Http1Pool.Slot slot, String authority) {
        this.pool = pool;
        this.slot = slot;
        this.authority = authority;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.context = ctx;
    }

    /** Sends {@code exchange}; callable from any thread. */
    void send(Exchange<?> exchange) {
        if (context.executor().inEventLoop()) {
            write(exchange);
        } else {
            context.executor().execute(() -> write(exchange));
        }
    }

    /** Whether the calling thread is this connection's event loop. */
    boolean onCallingThread() {
        return context.executor().inEventLoop();
    }

    boolean isInactive() {
        return inactive;
    }

    void close() {
        context.close();
    }

    private void write(Exchange<?> exchange) {
        if (exchange.isDone()) {
            pool.released(slot);
            return;
        }
        if (!context.channel().isActive()) {
            pool.resubmit(exchange); // nothing was written; channelInactive frees the slot
            return;
        }
        current = exchange;
        exchange.carriedBy(context.channel());
        ByteBuf body = exchange.writeBody(context.alloc());
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
                HttpMethod.valueOf(exchange.method), exchange.path, body);
        request.headers()
                .set(HttpHeaderNames.HOST, authority)
                .set(HttpHeaderNames.CONTENT_TYPE, exchange.contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        context.writeAndFlush(request).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            Exchange<?> exchange = current;
            current = null;
            if (!(msg instanceof FullHttpResponse response) || exchange == null) {
                ctx.close(); // an answer nobody asked for: the connection's state is unknown
                return;
            }
            if (response.decoderResult().isFailure()) {
                exchange.fail(Kind.BAD_ANSWER, "unreadable HTTP answer", response.decoderResult().cause());
                ctx.close();
                return;
            }
            if (HttpUtil.isKeepAlive(response)) {
                pool.released(slot);
            } else {
                ctx.close();
            }
            exchange.answer(response.status().code(), response.content());
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        lastError = cause;
        Exchange<?> exchange = current;
        current = null;
        if (exchange != null) {
            boolean badAnswer = cause instanceof TooLongFrameException || cause instanceof DecoderException
                    && !(cause.getCause() instanceof SSLException);
            exchange.fail(badAnswer ? Kind.BAD_ANSWER : Kind.CONNECTION_CLOSED, "HTTP/1.1 connection failed", cause);
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        inactive = true;
        Exchange<?> exchange = current;
        current = null;
        if (exchange != null) {
            exchange.fail(Kind.CONNECTION_CLOSED, "connection closed before the answer", lastError);
        }
        pool.disconnected(slot, this);
        ctx.fireChannelInactive();
    }
}
