// Http2StreamHandler -- reads the answer of one HTTP/2 stream (one request) and completes its exchange.
package io.elastikey.protocol.ski;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * The only handler of a child stream channel. It takes the {@code :status} of the final headers (informational
 * 1xx headers are skipped), gathers DATA frames up to the size limit, and completes the exchange at the end of the
 * stream. An answer in one DATA frame, the usual case for SKI, is read from that frame's buffer without a copy.
 * A reset stream or a connection lost before the end fails the exchange with {@link Kind#CONNECTION_CLOSED}.
 */
final class Http2StreamHandler extends ChannelInboundHandlerAdapter {
    private final Exchange<?> exchange;
    private final int maxResponseBytes;
    private int status = -1;
    private int received;
    private ByteBuf body;

    Http2StreamHandler(Exchange<?> exchange, int maxResponseBytes) {
        this.exchange = exchange;
        this.maxResponseBytes = maxResponseBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame headers) {
                readStatus(headers);
                if (headers.isEndStream()) {
                    finish(ctx);
                }
            } else if (msg instanceof Http2DataFrame data) {
                received += data.content().readableBytes();
                if (received > maxResponseBytes) {
                    exchange.fail(Kind.BAD_ANSWER, "answer longer than " + maxResponseBytes + " bytes", null);
                    ctx.close();
                    return;
                }
                append(ctx, data.content());
                if (data.isEndStream()) {
                    finish(ctx);
                }
            } else if (msg instanceof Http2ResetFrame reset) {
                exchange.fail(Kind.CONNECTION_CLOSED, "the server reset the stream (HTTP/2 error "
                        + reset.errorCode() + ")", null);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void readStatus(Http2HeadersFrame headers) {
        if (status >= 200) {
            return; // trailers
        }
        CharSequence text = headers.headers().status();
        int code = -1;
        try {
            code = text == null ? -1 : Integer.parseInt(text.toString());
        } catch (NumberFormatException e) {
            code = -1;
        }
        status = code >= 100 && code < 200 ? -1 : code;
    }

    private void append(ChannelHandlerContext ctx, ByteBuf content) {
        if (body == null) {
            body = content.retain();
        } else {
            CompositeByteBuf composite = body instanceof CompositeByteBuf c ? c : ctx.alloc().compositeBuffer()
                    .addComponent(true, body);
            body = composite.addComponent(true, content.retain());
        }
    }

    private void finish(ChannelHandlerContext ctx) {
        if (status < 0) {
            exchange.fail(Kind.BAD_ANSWER, "HTTP/2 answer without a valid :status", null);
        } else {
            exchange.answer(status, body != null ? body : Unpooled.EMPTY_BUFFER);
        }
        releaseBody();
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        exchange.fail(Kind.CONNECTION_CLOSED, "HTTP/2 stream failed", cause);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseBody();
        exchange.fail(Kind.CONNECTION_CLOSED, "HTTP/2 stream closed before the answer", null);
        ctx.fireChannelInactive();
    }

    private void releaseBody() {
        if (body != null) {
            body.release();
            body = null;
        }
    }
}
