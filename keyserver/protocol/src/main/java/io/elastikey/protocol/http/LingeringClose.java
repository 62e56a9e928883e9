// LingeringClose -- after a connection's last answer, read and discard until the client goes quiet, then close.
package io.elastikey.protocol.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection whose last answer is written without resetting it under the answer. Closing while the client's
 * bytes are still arriving (the rest of an over-long header, the body of a refused request) makes the kernel answer
 * them with a reset, and a reset can reach the client before it has read the answer: it then sees a dropped
 * connection instead of a {@code 431}. So the connection stays open, every byte it receives thrown away undecoded,
 * until a check every {@link #QUIET_MILLIS} finds that nothing arrived since the one before, or {@link #MAX_MILLIS}
 * have passed since the answer (RFC 9112 section 9.6; nginx's {@code lingering_timeout} and {@code lingering_time}). A
 * client that reads the answer's {@code Connection: close} and hangs up ends it at once.
 *
 * <p>Installed first in the pipeline, before TLS, so lingering costs no decryption. Confined to the event loop.
 */
public final class LingeringClose extends ChannelInboundHandlerAdapter {
    /** How often the connection checks whether its client has stopped sending. */
    public static final long QUIET_MILLIS = 2_000;
    /** The longest a connection lingers, however steadily its client keeps sending. */
    public static final long MAX_MILLIS = 10_000;

    private boolean readSinceCheck;
    private long lingeredMillis;
    private ScheduledFuture<?> check;

    private LingeringClose() {
    }

    /** Starts lingering on {@code ctx}'s channel, whose last answer has been written. On its event loop. */
    public static void begin(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive() || ctx.pipeline().get(LingeringClose.class) != null) {
            return;
        }
        LingeringClose lingering = new LingeringClose();
        ctx.pipeline().addFirst(lingering);
        ctx.channel().config().setAutoRead(true); // a handler holding reads back must not leave bytes unread
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        scheduleCheck(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
        readSinceCheck = true;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // Swallowed with the bytes: nothing behind this handler reads any more.
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
        }
        super.channelInactive(ctx);
    }

    private void scheduleCheck(ChannelHandlerContext ctx) {
        check = ctx.executor().schedule(() -> closeIfDone(ctx), QUIET_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void closeIfDone(ChannelHandlerContext ctx) {
        lingeredMillis += QUIET_MILLIS;
        if (!readSinceCheck || lingeredMillis >= MAX_MILLIS) {
            ctx.close();
        } else {
            readSinceCheck = false;
            scheduleCheck(ctx);
        }
    }
}
