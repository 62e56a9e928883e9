// Http2Exchanges -- the exchanges of one HTTP/2 connection: each request a stream, its answer read from the frames.
package io.elastikey.protocol.ski;

import java.util.IdentityHashMap;
import java.util.Map;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpScheme;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamEvent;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;

/**
 * Sits right after the {@link Http2FrameCodec} of a client connection and carries its exchanges, one stream each,
 * without a child channel per stream. A key operation is one small request and one small answer, so the
 * {@code Http2MultiplexHandler} way (a channel, a pipeline and their promises per stream, and every frame handed
 * through them) was a measurable share of an edge's CPU per handshake (docs/benchmarks.md, issue 17): here a stream
 * is an {@link Http2FrameStream} and an entry in a map, and its frames are read where they arrive.
 *
 * <p>What the child channels did and this class now does itself: the {@code :status} of the final headers
 * (informational 1xx headers are skipped), DATA gathered up to the size limit (an answer in one frame is read from
 * that frame's buffer without a copy), received bytes given back to the flow-control windows, a reset stream, a
 * stream the connection closed (GOAWAY past it, the connection lost) failing its exchange with
 * {@link Kind#CONNECTION_CLOSED}, and a cancelled exchange resetting its stream ({@code CANCEL}). A stream the server
 * opens (SKI has no server push, which the client's SETTINGS forbid) is reset. Connection-level frames go on to the
 * next handler.
 *
 * <p>Thread-safety: {@link #send} may be called from any thread and moves to the connection's event loop; everything
 * else runs there.
 */
final class Http2Exchanges extends Http2ChannelDuplexHandler {
    private final String authority;
    private final int maxResponseBytes;
    private final Map<Http2FrameStream, Answer> open = new IdentityHashMap<>();
    private ChannelHandlerContext ctx;

    Http2Exchanges(String authority, int maxResponseBytes) {
        this.authority = authority;
        this.maxResponseBytes = maxResponseBytes;
    }

    @Override
    protected void handlerAdded0(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Sends the exchange on a new stream of this connection. */
    void send(Exchange<?> exchange) {
        if (ctx.executor().inEventLoop()) {
            write(exchange);
        } else {
            ctx.executor().execute(() -> write(exchange));
        }
    }

    /** Streams carrying an exchange now. */
    int openStreams() {
        return open.size();
    }

    private void write(Exchange<?> exchange) {
        if (exchange.isDone()) {
            return;
        }
        if (!ctx.channel().isActive()) {
            exchange.fail(Kind.CONNECTION_CLOSED, "cannot open an HTTP/2 stream: the connection is closed", null);
            return;
        }
        Http2FrameStream stream = newStream();
        Answer answer = new Answer(exchange);
        open.put(stream, answer);
        exchange.carriedBy(() -> ctx.executor().execute(() -> cancel(stream)));
        if (exchange.isDone()) {
            return; // failed meanwhile; carriedBy has asked for the cancel, and the stream was never sent
        }
        ByteBuf body = exchange.writeBody(ctx.alloc());
        Http2Headers headers = new DefaultHttp2Headers()
                .method(exchange.method)
                .path(exchange.path)
                .scheme(HttpScheme.HTTPS.name())
                .authority(authority);
        headers.set(HttpHeaderNames.CONTENT_TYPE, exchange.contentType);
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        ChannelFutureListener failed = written -> {
            if (!written.isSuccess()) {
                forget(stream);
                exchange.fail(Kind.CONNECTION_CLOSED, "cannot send on an HTTP/2 stream", written.cause());
            }
        };
        ctx.write(new DefaultHttp2HeadersFrame(headers, false).stream(stream)).addListener(failed);
        ctx.writeAndFlush(new DefaultHttp2DataFrame(body, true).stream(stream)).addListener(failed);
    }

    /** The exchange no longer wants its answer: the stream is reset, unless it has ended already. */
    private void cancel(Http2FrameStream stream) {
        if (forget(stream) != null && stream.id() > 0 && stream.state() != Http2Stream.State.CLOSED
                && ctx.channel().isActive()) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
        }
    }

    private Answer forget(Http2FrameStream stream) {
        Answer answer = open.remove(stream);
        if (answer != null) {
            answer.release();
        }
        return answer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Http2StreamFrame frame) || frame.stream() == null) {
            ctx.fireChannelRead(msg); // SETTINGS, GOAWAY, PING: the connection's
            return;
        }
        try {
            Answer answer = open.get(frame.stream());
            if (msg instanceof Http2DataFrame data) {
                // Given back at once, as a child channel does on reading: the windows stay open for the next answers.
                int bytes = data.initialFlowControlledBytes();
                if (bytes > 0) {
                    ctx.write(new DefaultHttp2WindowUpdateFrame(bytes).stream(data.stream()));
                }
            }
            if (answer == null) {
                if (msg instanceof Http2HeadersFrame && frame.stream().state() != Http2Stream.State.CLOSED) {
                    ctx.write(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM).stream(frame.stream()));
                }
                return; // a stream the server opened, or one whose exchange was cancelled
            }
            read(frame.stream(), answer, msg);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void read(Http2FrameStream stream, Answer answer, Object msg) {
        if (msg instanceof Http2HeadersFrame headers) {
            answer.readStatus(headers.headers());
            if (headers.isEndStream()) {
                finish(stream, answer);
            }
        } else if (msg instanceof Http2DataFrame data) {
            if (!answer.append(data.content(), maxResponseBytes)) {
                forget(stream);
                answer.exchange.fail(Kind.BAD_ANSWER, "answer longer than " + maxResponseBytes + " bytes", null);
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
            } else if (data.isEndStream()) {
                finish(stream, answer);
            }
        } else if (msg instanceof Http2ResetFrame reset) {
            forget(stream);
            answer.exchange.fail(Kind.CONNECTION_CLOSED, "the server reset the stream (HTTP/2 error "
                    + reset.errorCode() + ")", null);
        }
    }

    private void finish(Http2FrameStream stream, Answer answer) {
        open.remove(stream);
        answer.finish();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush(); // window updates and resets written while reading
        ctx.fireChannelReadComplete();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof Http2FrameStreamEvent event && event.stream().state() == Http2Stream.State.CLOSED) {
            Answer answer = forget(event.stream());
            if (answer != null) { // closed without its answer: GOAWAY past it, or the connection went
                answer.exchange.fail(Kind.CONNECTION_CLOSED, "HTTP/2 stream closed before the answer", null);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Answer[] left = open.values().toArray(Answer[]::new);
        open.clear();
        for (Answer answer : left) {
            answer.release();
            answer.exchange.fail(Kind.CONNECTION_CLOSED, "HTTP/2 connection closed before the answer", null);
        }
        ctx.fireChannelInactive();
    }

    /** What has arrived of one stream's answer. */
    private static final class Answer {
        final Exchange<?> exchange;
        private int status = -1;
        private int received;
        private ByteBuf body;

        Answer(Exchange<?> exchange) {
            this.exchange = exchange;
        }

        void readStatus(Http2Headers headers) {
            if (status >= 200) {
                return; // trailers
            }
            CharSequence text = headers.status();
            int code;
            try {
                code = text == null ? -1 : Integer.parseInt(text.toString());
            } catch (NumberFormatException e) {
                code = -1;
            }
            status = code >= 100 && code < 200 ? -1 : code;
        }

        /** False when the answer would grow past the limit. */
        boolean append(ByteBuf content, int limit) {
            received += content.readableBytes();
            if (received > limit) {
                return false;
            }
            if (body == null) {
                body = content.retain();
            } else {
                body = (body instanceof CompositeByteBuf composite ? composite
                        : content.alloc().compositeBuffer().addComponent(true, body))
                        .addComponent(true, content.retain());
            }
            return true;
        }

        void finish() {
            if (status < 0) {
                exchange.fail(Kind.BAD_ANSWER, "HTTP/2 answer without a valid :status", null);
            } else {
                exchange.answer(status, body != null ? body : Unpooled.EMPTY_BUFFER);
            }
            release();
        }

        void release() {
            if (body != null) {
                body.release();
                body = null;
            }
        }
    }
}
