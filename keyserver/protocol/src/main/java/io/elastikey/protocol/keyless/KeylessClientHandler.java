// KeylessClientHandler -- the last step of a client connection: numbers requests, matches answers to them.
package io.elastikey.protocol.keyless;

import io.elastikey.protocol.ski.SkiTransportException;
import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Writes each {@link KeylessPending} with the next request ID of this connection and completes it when the answer
 * with that ID arrives, in whatever order answers come. Everything runs on the connection's event loop. A sweep a
 * few times per request timeout fails the requests whose deadline has passed; when the connection closes, whatever
 * is still waiting fails with {@link Kind#CONNECTION_CLOSED}.
 */
final class KeylessClientHandler extends ChannelDuplexHandler {
    private static final byte[] EMPTY = new byte[0];
    private static final long MIN_SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final IntObjectHashMap<KeylessPending> waiting = new IntObjectHashMap<>();
    private final long timeoutMillis;
    private final long sweepNanos;
    private ScheduledFuture<?> sweep;
    private int nextId;

    KeylessClientHandler(Duration requestTimeout) {
        this.timeoutMillis = requestTimeout.toMillis();
        this.sweepNanos = Math.max(MIN_SWEEP_NANOS, Math.min(MAX_SWEEP_NANOS, requestTimeout.toNanos() / 10));
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        sweep = ctx.executor().scheduleAtFixedRate(this::failExpired, sweepNanos, sweepNanos, TimeUnit.NANOSECONDS);
    }

    private void failExpired() {
        if (waiting.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        List<Integer> expired = new ArrayList<>();
        for (IntObjectMap.PrimitiveEntry<KeylessPending> entry : waiting.entries()) {
            if (now - entry.value().deadlineNanos() >= 0 || entry.value().future().isDone()) {
                expired.add(entry.key());
            }
        }
        for (int id : expired) {
            waiting.remove(id).fail(timeout());
        }
    }

    private SkiTransportException timeout() {
        return new SkiTransportException(Kind.TIMEOUT, "no answer within " + timeoutMillis + " ms");
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof KeylessPending pending)) {
            ctx.write(msg, promise);
            return;
        }
        if (pending.future().isDone()) { // the client closed while it waited for this loop
            promise.setSuccess();
            return;
        }
        if (System.nanoTime() - pending.deadlineNanos() >= 0) { // the connection took longer than the request may
            pending.fail(timeout());
            promise.setSuccess();
            return;
        }
        int id = nextId++;
        waiting.put(id, pending);
        byte[] payload = pending.payload();
        ByteBuf out = ctx.alloc().ioBuffer(KeylessCodec.PADDED_LENGTH + (payload == null ? 0 : payload.length));
        KeylessCodec.writeRequest(out, id, pending.opcode(), pending.ski(), pending.digest(), payload);
        ctx.write(out, promise).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                waiting.remove(id);
                pending.fail(new SkiTransportException(Kind.CONNECTION_CLOSED, "the request could not be written: "
                        + f.cause().getMessage(), f.cause()));
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof KeylessProblem problem) {
            KeylessPending pending = waiting.remove(problem.id());
            if (pending != null) {
                pending.fail(badAnswer("an answer the client cannot read: " + problem.reason()));
            }
            if (problem.fatal()) {
                ctx.close();
            }
            return;
        }
        if (!(msg instanceof KeylessMessage answer)) {
            ctx.fireChannelRead(msg);
            return;
        }
        KeylessPending pending = waiting.remove(answer.id());
        if (pending == null) {
            return; // timed out already
        }
        KeylessOpcode opcode = KeylessOpcode.ofCode(answer.opcode());
        byte[] payload = answer.payload() == null ? EMPTY : answer.payload();
        if (opcode == KeylessOpcode.RESPONSE || opcode == KeylessOpcode.PONG) {
            pending.future().complete(payload);
        } else if (opcode == KeylessOpcode.ERROR && payload.length == 1) {
            pending.fail(new KeylessAnswerException(payload[0] & 0xFF));
        } else {
            pending.fail(badAnswer("an answer with opcode 0x" + Integer.toHexString(answer.opcode())));
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (sweep != null) {
            sweep.cancel(false);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (sweep != null) {
            sweep.cancel(false);
        }
        List<KeylessPending> lost = new ArrayList<>(waiting.values());
        waiting.clear();
        for (KeylessPending pending : lost) {
            pending.fail(new SkiTransportException(Kind.CONNECTION_CLOSED, "the connection closed before the answer"));
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private static SkiTransportException badAnswer(String message) {
        return new SkiTransportException(Kind.BAD_ANSWER, message);
    }
}
