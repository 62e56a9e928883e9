// RespDispatcher -- answers memory hits on the event loop, runs the rest off it, in order, a burst per task.
package io.elastikey.resp;

import io.elastikey.protocol.http.LingeringClose;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The last inbound step. Store calls may block (a disk read, a write parked until its group
 * fsync), so they never run on the event loop, with one exception: while the connection has
 * nothing queued or in flight, a request that can be answered without blocking (a GET whose value
 * is in the store's memory tier, PING, ECHO: {@link CommandRunner#answerFromMemory}) is answered
 * right here, its reply encoded into one outbound buffer that is flushed once at the end of the
 * socket read. The first request that cannot be answered so, and every request after it, take
 * the worker path, so replies keep request order. Requests queue per connection; at the end of a
 * socket read the connection is scheduled once, joining its loop's {@link ReadyConnections}: the
 * connections of one loop turn whose next request reads go to a read worker as one task, those
 * whose next request writes to a write worker. The task takes what is queued (a pipelined burst, up to
 * {@link #BATCH}), runs it in order through {@link CommandRunner}, which encodes the replies into one
 * buffer, and hands that to the event loop for one write and one flush. A connection never has more than one task in
 * flight, so its replies leave in request order.
 *
 * <p>Back-pressure: the connection stops reading while {@link RespLimits#maxPipelined} requests
 * wait for replies or while its outbound buffer is above the high-water mark, and runs no further batch while it is
 * above it: a client that pipelines GETs of large values and never reads holds a batch of replies, not every reply
 * it asked for. A batch is cut to about {@link #BATCH_BYTES} of replies at the last value size seen.
 *
 * <p>A protocol error becomes a request of its own, so it is answered after every reply already
 * due; then the connection closes once the client stops sending ({@link LingeringClose}), so the rest of a refused
 * request cannot reset the connection under the error's text.
 */
final class RespDispatcher extends ChannelInboundHandlerAdapter {
    private static final int BATCH = 256;
    /** About how many bytes of replies one batch builds: some 250 replies of 4 KiB, or one of 1 MiB. */
    private static final int BATCH_BYTES = 1 << 20;
    /** Size of an outbound buffer for replies answered on the event loop; a full one is written and replaced. */
    private static final int INLINE_BUFFER = 64 * 1024;

    private final CommandRunner runner;
    private final Workers workers;
    private final ReadyConnections loopGroup;
    private final int maxPipelined;
    private final ConnectionState state;
    private final Queue<RespRequest> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicInteger pending = new AtomicInteger();
    private ChannelHandlerContext ctx;
    private boolean closing; // event loop only
    private volatile boolean scheduledClose; // a batch ended with QUIT or a protocol error
    private ByteBuf inline;        // event loop only: replies answered on the loop in this read
    private boolean inlineWritten; // event loop only: a full inline buffer was written, not flushed

    RespDispatcher(CommandRunner runner, Workers workers, ReadyConnections loopGroup, int maxPipelined,
                   ConnectionState state) {
        this.runner = runner;
        this.workers = workers;
        this.loopGroup = loopGroup;
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
            return;
        }
        // pending counts requests queued or running whose replies the loop has not written yet:
        // zero means no reply can be due before this one.
        if (pending.get() == 0 && ctx.channel().isWritable() && answerInline(request)) {
            return;
        }
        enqueue(request);
    }

    private boolean answerInline(RespRequest request) {
        if (!CommandRunner.mayAnswerFromMemory(request)) {
            return false;
        }
        ByteBuf out = inline;
        if (out == null || out.capacity() - out.writerIndex() < state.valueSizeHint + 32) {
            if (out != null) {
                ctx.write(out, ctx.voidPromise());
                inlineWritten = true;
            }
            out = inline = ctx.alloc().directBuffer(Math.max(INLINE_BUFFER, state.valueSizeHint + 32));
        }
        return runner.answerFromMemory(request, out, state);
    }

    /** On the event loop: writes and flushes what was answered inline since the last call. */
    private void flushInline() {
        ByteBuf out = inline;
        inline = null;
        if (out != null && out.isReadable()) {
            ctx.write(out, ctx.voidPromise());
            inlineWritten = true;
        } else if (out != null) {
            out.release();
        }
        if (inlineWritten) {
            inlineWritten = false;
            ctx.flush();
        }
    }

    private void enqueue(RespRequest request) {
        queue.add(request);
        if (pending.incrementAndGet() >= maxPipelined) {
            updateAutoRead();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushInline();
        schedule();
        ctx.fireChannelReadComplete();
    }

    /** On the event loop. */
    private void schedule() {
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            loopGroup.add(this, headWrites());
        }
    }

    private boolean headWrites() {
        RespRequest head = queue.peek();
        return head != null && head.writes();
    }

    private void submitAlone(java.util.concurrent.Executor pool) {
        try {
            pool.execute(() -> {
                Runnable write = runBatch(false);
                if (write != null) {
                    ctx.executor().execute(write);
                }
                finished();
            });
        } catch (RejectedExecutionException e) { // the server is shutting down
            abandon();
        }
    }

    /** On a worker: runs what is queued ({@link #take}, {@link #run}); returns the write task, or null. */
    Runnable runBatch(boolean readsOnly) {
        List<RespRequest> batch = take(readsOnly);
        return batch.isEmpty() ? null : run(batch);
    }

    /** On a worker: up to {@link #BATCH} queued requests, stopping before the first write when {@code readsOnly}. */
    List<RespRequest> take(boolean readsOnly) {
        int most = Math.max(1, Math.min(BATCH, BATCH_BYTES / (state.valueSizeHint + 16)));
        List<RespRequest> batch = new ArrayList<>(Math.min(most, Math.max(1, pending.get())));
        RespRequest r;
        while (batch.size() < most && (r = queue.peek()) != null && !(readsOnly && r.writes())) {
            r = queue.poll(); // null only when the connection closed meanwhile and cleared the queue
            if (r == null) {
                break;
            }
            batch.add(r);
        }
        return batch;
    }

    /** On a worker: runs {@code batch}; returns the event-loop task that writes the replies. */
    Runnable run(List<RespRequest> batch) {
        ByteBuf replies = newReplyBuffer(batch.size());
        boolean close;
        try {
            close = runner.run(batch, replies, state);
        } catch (RuntimeException | Error e) {
            replies.release();
            throw e;
        }
        if (close) {
            scheduledClose = true;
        }
        int answered = batch.size();
        boolean refused = close && batch.get(answered - 1).protocolError() != null;
        return () -> write(replies, answered, close, refused);
    }

    /** The event-loop task writing {@code replies}, encoded elsewhere, for {@code answered} requests. */
    Runnable written(ByteBuf replies, int answered) {
        return () -> write(replies, answered, false, false);
    }

    ByteBuf newReplyBuffer(int requests) {
        return replyBuffer(requests * (state.valueSizeHint + 16));
    }

    /** A reply buffer of {@code bytes} to start with; it grows if the replies need more. */
    ByteBuf replyBuffer(int bytes) {
        return ctx.alloc().directBuffer(Math.max(64, bytes));
    }

    ConnectionState state() {
        return state;
    }

    /** On the event loop: runs an already taken batch as a task of its own on the write pool. */
    void runAlone(List<RespRequest> batch) {
        try {
            workers.writes.execute(() -> {
                ctx.executor().execute(run(batch));
                finished();
            });
        } catch (RejectedExecutionException e) {
            abandon();
        }
    }

    /**
     * After the batch's write task was handed to the event loop (or run on it): schedules what came since, unless
     * the client is not reading what it was sent; then {@link #channelWritabilityChanged} schedules it when it does.
     * {@code scheduled} is cleared before writability is read, so a change between the two is not missed.
     */
    void finished() {
        scheduled.set(false);
        if (!scheduledClose && !queue.isEmpty() && ctx.channel().isWritable() && scheduled.compareAndSet(false, true)) {
            submitAlone(headWrites() ? workers.writes : workers.reads);
        }
    }

    /** The pools refused the task: the server is stopping. */
    void abandon() {
        scheduled.set(false);
        ctx.close();
    }

    private void write(ByteBuf replies, int answered, boolean close, boolean refused) {
        pending.addAndGet(-answered);
        if (close) {
            closing = true;
            ctx.writeAndFlush(replies).addListener(refused ? f -> LingeringClose.begin(ctx)
                    : ChannelFutureListener.CLOSE);
            return;
        }
        ctx.writeAndFlush(replies, ctx.voidPromise());
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
        if (ctx.channel().isWritable() && !scheduledClose) {
            schedule();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException || closing) {
            ctx.close();
            return;
        }
        String message = cause instanceof RespProtocolException ? cause.getMessage() : protocolMessage(cause);
        flushInline(); // the replies due before the error go first
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
        queue.clear();
        if (inline != null) {
            inline.release();
            inline = null;
        }
        ctx.fireChannelInactive();
    }
}
