// IdleConnectionCloser -- closes a connection on which nothing was read or written for the idle timeout.
package io.elastikey.protocol.net;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that has, for {@code timeout}, read nothing and been given nothing to write: the idle timeout
 * of every server here ({@code timeouts.idle}, the RESP server's and the agent's). Netty's {@code IdleStateHandler}
 * does the same, but to see writes complete it turns each write's void promise into a real one with a listener:
 * three objects per reply, a third of the RESP server's garbage under a GET load (async-profiler, docs/benchmarks.md,
 * "Past RAM"). Here a write counts when it is handed to the pipeline, not when the socket takes it: a peer that
 * stops reading is not written to again (each server stops at its write-buffer mark), so it goes idle all the same.
 *
 * <p>One timer per connection. A read or write only notes how long the armed timer still had to run; when it fires,
 * a connection with no activity since it was armed is closed, and one with activity gets a timer for the rest of
 * its timeout since then. So a connection is closed after at least the timeout without activity, and later by as
 * much as its event loop runs timers late. Times are the event loop's own (tests move them). Event loop only; one
 * instance per connection.
 */
public final class IdleConnectionCloser extends ChannelDuplexHandler {
    private final long timeoutNanos;
    private ScheduledFuture<?> timer;
    /** Whether anything was read or written since {@link #timer} was armed. */
    private boolean active;
    /** What {@link #timer} still had to run at the last read or write. */
    private long leftAtActivityNanos;

    public IdleConnectionCloser(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the idle timeout must be positive: " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            arm(ctx, timeoutNanos);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        arm(ctx, timeoutNanos);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        noteActivity();
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        noteActivity();
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        disarm();
    }

    private void noteActivity() {
        ScheduledFuture<?> armed = timer;
        if (armed != null) {
            active = true;
            leftAtActivityNanos = armed.getDelay(TimeUnit.NANOSECONDS);
        }
    }

    private void arm(ChannelHandlerContext ctx, long delayNanos) {
        if (timer == null) {
            active = false;
            timer = ctx.executor().schedule(() -> fired(ctx), delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void fired(ChannelHandlerContext ctx) {
        if (timer == null || !ctx.channel().isOpen()) {
            return; // removed or closed meanwhile
        }
        timer = null;
        // The last activity came when the timer had this much left, so (firing on time) it is as long ago as that.
        long idle = leftAtActivityNanos;
        if (!active || idle >= timeoutNanos) {
            ctx.close();
            return;
        }
        arm(ctx, timeoutNanos - idle);
    }

    private void disarm() {
        ScheduledFuture<?> armed = timer;
        timer = null;
        if (armed != null) {
            armed.cancel(false);
        }
    }
}
