// RespDispatcher -- runs a connection's commands off the event loop, in order, a pipelined burst per task.
package io.elastikey.resp;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.RedisMessage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The last inbound step. Store calls may block (a disk read, a write parked until its group
 * fsync), so they never run on the event loop. Requests queue per connection; at the end of each
 * socket read one task takes everything queued so far to a worker thread, runs it in order
 * through {@link CommandRunner}, and hands the replies back to the event loop in one write and
 * one flush. A pipelined burst thus costs two thread hops, not two per command, and a connection
 * never has more than one task in flight, so its replies leave in request order.
 *
 * <p>Back-pressure: the connection stops reading while {@link RespLimits#maxPipelined} requests
 * wait for replies or while its outbound buffer is above the high-water mark.
 *
 * <p>A protocol error becomes a request of its own, so it is answered after every reply already
 * due; then the connection closes.
 */
final class RespDispatcher extends ChannelInboundHandlerAdapter {
    private static final int BATCH = 256;

    private final CommandRunner runner;
    private final Executor workers;
    private final int maxPipelined;
    private final ConnectionState state;
    private final Queue<RespRequest> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicInteger pending = new AtomicInteger();
    private final Runnable drain = this::drain;
    private ChannelHandlerContext ctx;
    private boolean closing; // event loop only

    RespDispatcher(CommandRunner runner, Executor workers, int maxPipelined, ConnectionState state) {
        this.runner = runner;
        this.workers = workers;
        this.maxPipelined = maxPipelined;
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        RespRequest request = (RespRequest) msg;
        if (closing) {
            request.release();
            return;
        }
        enqueue(request);
    }

    private void enqueue(RespRequest request) {
        queue.add(request);
        if (pending.incrementAndGet() >= maxPipelined) {
            updateAutoRead();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        schedule();
        ctx.fireChannelReadComplete();
    }

    private void schedule() {
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            try {
                workers.execute(drain);
            } catch (RejectedExecutionException e) { // the server is shutting down
                scheduled.set(false);
                ctx.close();
            }
        }
    }

    /** On a worker: runs up to {@link #BATCH} queued requests, then passes their replies to the event loop. */
    private void drain() {
        List<RespRequest> batch = new ArrayList<>(Math.min(BATCH, Math.max(1, pending.get())));
        RespRequest r;
        while (batch.size() < BATCH && (r = queue.poll()) != null) {
            batch.add(r);
        }
        List<RedisMessage> replies = new ArrayList<>(batch.size());
        boolean close = runner.run(batch, replies, state);
        int answered = batch.size();
        ctx.executor().execute(() -> write(replies, answered, close));
        scheduled.set(false);
        if (!close) {
            schedule();
        }
    }

    private void write(List<RedisMessage> replies, int answered, boolean close) {
        for (RedisMessage reply : replies) {
            ctx.write(reply, ctx.voidPromise());
        }
        pending.addAndGet(-answered);
        if (close) {
            closing = true;
            ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.flush();
        updateAutoRead();
    }

    private void updateAutoRead() {
        boolean read = !closing && pending.get() < maxPipelined && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateAutoRead();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException || closing) {
            ctx.close();
            return;
        }
        String message = cause instanceof RespProtocolException ? cause.getMessage() : protocolMessage(cause);
        enqueue(RespRequest.protocolError(message));
        closing = true;
        updateAutoRead();
        schedule();
    }

    private static String protocolMessage(Throwable cause) {
        Throwable root = cause.getCause() != null ? cause.getCause() : cause;
        String detail = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return "Protocol error: " + detail;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        RespRequest r;
        while ((r = queue.poll()) != null) {
            r.release();
        }
        ctx.fireChannelInactive();
    }
}
