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

import java.util.ArrayList;
import java.util.List;

/**
 * Writes each {@link KeylessPending} with the next request ID of this connection and completes it when the answer
 * with that ID arrives, in whatever order answers come. Everything runs on the connection's event loop. When the
 * connection closes, whatever is still waiting fails with {@link Kind#CONNECTION_CLOSED}.
 */
final class KeylessClientHandler extends ChannelDuplexHandler {
    private static final byte[] EMPTY = new byte[0];

    private final IntObjectHashMap<KeylessPending> waiting = new IntObjectHashMap<>();
    private ChannelHandlerContext context;
    private int nextId;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.context = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof KeylessPending pending)) {
            ctx.write(msg, promise);
            return;
        }
        if (pending.future().isDone()) { // timed out or the client closed while it waited for this loop
            promise.setSuccess();
            return;
        }
        int id = nextId++;
        pending.written(this, id);
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

    /** Drops {@code pending} from the waiting list once its future completed some other way (a timeout). */
    void forget(KeylessPending pending) {
        if (context.executor().inEventLoop()) {
            waiting.remove(pending.id(), pending);
        } else {
            context.executor().execute(() -> waiting.remove(pending.id(), pending));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
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
