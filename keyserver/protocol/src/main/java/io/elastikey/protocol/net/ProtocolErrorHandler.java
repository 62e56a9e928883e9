// ProtocolErrorHandler -- the last handler of every pipeline: a client's protocol error is one counted line.
package io.elastikey.protocol.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where every exception a connection's pipeline raises ends up, instead of Netty's pipeline tail (which logs a WARN
 * with the whole stack trace, and for a broken HTTP/2 preface a hex dump of what the client sent, once per
 * connection: a flood of log for anyone who can complete a handshake).
 *
 * <p>A client's protocol error ({@link ProtocolErrorKind}) is counted through {@code counter} and logged at INFO as
 * one line (remote address, kind, short reason, no stack trace), at most one per connection and at most
 * {@value #LINES_PER_SECOND} a second for the whole server ({@link RateLimitedLog}). Anything else is the server's own
 * failure and keeps its stack trace, at WARN, under the same rate limit. Either way the channel is closed: for an
 * HTTP/2 stream that resets the stream (with the HTTP/2 error code the exception carries, else {@code PROTOCOL_ERROR}
 * for the client's error and {@code INTERNAL_ERROR} for ours), for a connection it ends it (HTTP/2 sends GOAWAY
 * first, with the error's code).
 *
 * <p>Sharable: one instance serves every connection and stream of a server. Codecs that answer a malformed request
 * themselves (an HTTP/1.1 {@code 400}, a request-read timeout) report it with {@link #report}.
 */
@Sharable
public final class ProtocolErrorHandler extends ChannelInboundHandlerAdapter {
    /** The handler's name in a pipeline; protocol negotiators add their handlers before it. */
    public static final String NAME = "protocol-errors";
    static final int LINES_PER_SECOND = 10;
    private static final Logger LOG = LoggerFactory.getLogger(ProtocolErrorHandler.class);
    private static final AttributeKey<Boolean> LOGGED = AttributeKey.valueOf(ProtocolErrorHandler.class, "logged");
    /** The peer's address, kept from the start: a channel that is closing may no longer know it. */
    private static final AttributeKey<SocketAddress> REMOTE =
            AttributeKey.valueOf(ProtocolErrorHandler.class, "remote");

    private final Consumer<ProtocolErrorKind> counter;
    private final RateLimitedLog clientErrors = new RateLimitedLog(LOG, Level.INFO, LINES_PER_SECOND,
            Duration.ofSeconds(1));
    private final RateLimitedLog ownErrors = new RateLimitedLog(LOG, Level.WARN, LINES_PER_SECOND,
            Duration.ofSeconds(1));

    /** @param counter counts each protocol error by kind (a metric); called on the event loop, must not block */
    public ProtocolErrorHandler(Consumer<ProtocolErrorKind> counter) {
        this.counter = Objects.requireNonNull(counter, "counter");
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!(ctx.channel() instanceof Http2StreamChannel)) {
            ctx.channel().attr(REMOTE).set(ctx.channel().remoteAddress());
        }
        super.channelActive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PrematureChannelClosureException) {
            // A request cut short by the connection's close, which is what was reported, if anything.
            LOG.debug("{} closed in the middle of a request", remote(ctx.channel()));
            ctx.close();
            return;
        }
        ProtocolErrorKind kind = ProtocolErrorKind.of(cause);
        if (kind != null) {
            report(ctx.channel(), kind, ProtocolErrorKind.describe(cause));
        } else {
            ownErrors.log("unexpected failure on the connection from {}, closing it", remote(ctx.channel()), cause);
        }
        boolean http2Error = Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null;
        if (ctx.channel() instanceof Http2StreamChannel stream) {
            // The stream's pipeline resets the stream with the code of the HTTP/2 error that reaches its end
            // (STREAM_CLOSED, PROTOCOL_ERROR...); a close here would reset it with CANCEL, which says the client
            // gave up. A request that cannot be read is the client's PROTOCOL_ERROR, a failure here our own.
            ctx.fireExceptionCaught(http2Error ? cause : Http2Exception.streamError(stream.stream().id(),
                    kind != null ? Http2Error.PROTOCOL_ERROR : Http2Error.INTERNAL_ERROR, cause, "%s",
                    ProtocolErrorKind.describe(cause)));
            return;
        }
        if (http2Error && ctx.pipeline().get(Http2ConnectionHandler.class) != null) {
            // A connection error: the codec sends GOAWAY with its code and closes once this handler returns; a close
            // now would send GOAWAY with NO_ERROR first. The close queued here is for an error raised past the codec,
            // which nothing else would close for.
            ctx.executor().execute(ctx::close);
            return;
        }
        ctx.close();
    }

    /**
     * Counts a protocol error of the client on {@code channel} (a connection or one of its HTTP/2 streams) and logs
     * it in one line, unless a line for this connection was already written. Does not close anything.
     */
    public void report(Channel channel, ProtocolErrorKind kind, String reason) {
        counter.accept(kind);
        Channel connection = connectionOf(channel);
        if (connection.attr(LOGGED).setIfAbsent(Boolean.TRUE) == null) {
            clientErrors.log("{} protocol error from {}: {}", kind.label(), remote(connection), reason);
        }
    }

    /** The TCP connection {@code channel} is or belongs to (an accepted channel's parent is the listener). */
    private static Channel connectionOf(Channel channel) {
        return channel instanceof Http2StreamChannel ? channel.parent() : channel;
    }

    private static SocketAddress remote(Channel channel) {
        Channel connection = connectionOf(channel);
        SocketAddress remote = connection.attr(REMOTE).get();
        return remote != null ? remote : connection.remoteAddress();
    }
}
