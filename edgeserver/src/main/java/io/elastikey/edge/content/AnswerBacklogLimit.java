// AnswerBacklogLimit -- bounds the bytes of answers written for clients that have not taken them yet.
package io.elastikey.edge.content;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * An answer stays in the edge's memory from the moment it is written until the client has taken it: until HTTP/2
 * flow control lets it go, or the socket accepts it. A client that asks for large objects on many streams and never
 * opens its receive window (or an HTTP/1.1 client that pipelines requests and never reads) would otherwise make the
 * edge hold every answer: 38 such connections with 100 streams of 1 MB each took an edge from 0.7 to 5 GB of
 * memory. So each answer is counted against its connection's backlog and the edge's while it is unsent, and one
 * that would take its connection past {@code perConnection} (unless it is the connection's only one) or the edge
 * past {@code total} is not sent: its HTTP/2 stream is reset with {@code ENHANCE_YOUR_CALM}, and an HTTP/1.1
 * connection gets {@code 503} in its place and is closed (answers pipelined behind it are dropped). The answer
 * was fetched and may be cached; it is only not kept for this client.
 *
 * <p>Sits right before the {@link ContentHandler} in each HTTP/1.1 connection and HTTP/2 stream pipeline, so it sees
 * every answer that handler writes; one instance per edge.
 * A connection's backlog is touched only on its event loop (its streams share it); the edge's is atomic.
 */
@Sharable
public final class AnswerBacklogLimit extends ChannelOutboundHandlerAdapter {
    private static final AttributeKey<Backlog> BACKLOG = AttributeKey.valueOf(AnswerBacklogLimit.class, "backlog");

    private final long perConnection;
    private final long total;
    private final AtomicLong unsent = new AtomicLong();
    private final LongAdder refused = new LongAdder();

    public AnswerBacklogLimit(long perConnection, long total) {
        this.perConnection = perConnection;
        this.total = total;
    }

    /** Bytes of answers written and not yet taken by their clients, over every connection. */
    public long unsent() {
        return unsent.get();
    }

    /** Answers not sent because of the limits. */
    public long refused() {
        return refused.sum();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof FullHttpResponse response)) {
            ctx.write(msg, promise);
            return;
        }
        long bytes = response.content().readableBytes();
        Channel channel = ctx.channel();
        Backlog backlog = backlogOf(channel instanceof Http2StreamChannel ? channel.parent() : channel);
        if (backlog.closing) {
            drop(response, promise); // pipelined behind the 503 that closes this HTTP/1.1 connection
            return;
        }
        if (backlog.bytes > 0 && backlog.bytes + bytes > perConnection || unsent.get() + bytes > total) {
            refused.increment();
            drop(response, promise);
            refuse(ctx, backlog);
            return;
        }
        backlog.bytes += bytes;
        unsent.addAndGet(bytes);
        ChannelPromise tracked = promise.unvoid();
        tracked.addListener(done -> {
            backlog.bytes -= bytes;
            unsent.addAndGet(-bytes);
        });
        ctx.write(response, tracked);
    }

    private static void drop(FullHttpResponse response, ChannelPromise promise) {
        ReferenceCountUtil.release(response);
        promise.tryFailure(new IllegalStateException("answer not sent: the client has too many answers unread"));
    }

    private static void refuse(ChannelHandlerContext ctx, Backlog backlog) {
        if (ctx.channel() instanceof Http2StreamChannel) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.ENHANCE_YOUR_CALM));
            return;
        }
        backlog.closing = true;
        FullHttpResponse busy = Reply.text(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                "too many answers not yet read on this connection");
        busy.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(busy).addListener(ChannelFutureListener.CLOSE);
    }

    private static Backlog backlogOf(Channel connection) {
        Backlog backlog = connection.attr(BACKLOG).get();
        if (backlog == null) {
            backlog = new Backlog();
            connection.attr(BACKLOG).set(backlog);
        }
        return backlog;
    }

    /** One connection's unsent bytes, and whether it is closing after a 503; confined to its event loop. */
    private static final class Backlog {
        long bytes;
        boolean closing;
    }
}
