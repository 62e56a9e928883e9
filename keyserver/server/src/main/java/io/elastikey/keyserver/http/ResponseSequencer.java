package io.elastikey.keyserver.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * Keeps HTTP/1.1 answers in request order. Requests on one connection may be pipelined and
 * their crypto finishes in any order on the worker pool; HTTP/1.1 has no request IDs, so an
 * answer that is ready early waits for the ones before it.
 *
 * <p>Confined to the channel's event loop. Over HTTP/2 each stream is its own channel with a
 * single request, so the sequencer only ever holds one answer there.
 */
final class ResponseSequencer {
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();

    /** Reserves the next place in line, in the order requests arrived. */
    Slot reserve(boolean closeAfter) {
        Slot slot = new Slot(closeAfter);
        slots.addLast(slot);
        return slot;
    }

    /** Fills {@code slot} and writes every answer that is now first in line. */
    void complete(ChannelHandlerContext ctx, Slot slot, FullHttpResponse response) {
        slot.response = response;
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().response != null) {
            Slot head = slots.pollFirst();
            var future = ctx.write(head.response);
            head.response = null;
            wrote = true;
            if (head.closeAfter) {
                future.addListener(ChannelFutureListener.CLOSE);
                discardRemaining();
                break;
            }
        }
        if (wrote) {
            ctx.flush();
        }
    }

    /** Frees answers that will never be written because the connection closes. */
    void discardRemaining() {
        for (Slot slot : slots) {
            ReferenceCountUtil.release(slot.response);
            slot.response = null;
        }
        slots.clear();
    }

    static final class Slot {
        private final boolean closeAfter;
        private FullHttpResponse response;

        private Slot(boolean closeAfter) {
            this.closeAfter = closeAfter;
        }
    }
}
