package io.elastikey.keyserver.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Keeps HTTP/1.1 answers in request order. Requests on one connection may be pipelined and
 * their crypto finishes in any order on the worker pool; HTTP/1.1 has no request IDs, so an
 * answer that is ready early waits for the ones before it.
 *
 * <p>Confined to the channel's event loop. Over HTTP/2 each stream is its own channel with a
 * single request, so the sequencer only ever holds one answer there.
 */
final class ResponseSequencer {
    /**
     * How long a connection stays open, reading and discarding, after its last answer. Closing at
     * once with the client's bytes still unread (the rest of an over-long header, say) makes the
     * kernel reset the connection, and the reset can reach the client before the answer does.
     */
    static final long LINGER_MILLIS = 500;

    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private boolean closing;

    /** Reserves the next place in line, in the order requests arrived. */
    Slot reserve(boolean closeAfter) {
        Slot slot = new Slot(closeAfter);
        if (closing) {
            slot.discarded = true; // arrived after the answer that closes the connection
        } else {
            slots.addLast(slot);
        }
        return slot;
    }

    /** Whether the connection's last answer has been written; later requests are not served. */
    boolean closing() {
        return closing;
    }

    /** Fills {@code slot} and writes every answer that is now first in line. */
    void complete(ChannelHandlerContext ctx, Slot slot, FullHttpResponse response) {
        if (slot.discarded) {
            // Its connection closed after an earlier answer; nobody will write this one.
            ReferenceCountUtil.release(response);
            return;
        }
        slot.response = response;
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().response != null) {
            Slot head = slots.pollFirst();
            if (head.closeAfter) {
                // Say so, or an HTTP/1.1 client would send its next request on a closing connection.
                HttpUtil.setKeepAlive(head.response, false);
            }
            var future = ctx.write(head.response);
            head.response = null;
            wrote = true;
            if (head.closeAfter) {
                future.addListener(f -> ctx.executor().schedule(() -> ctx.close(), LINGER_MILLIS,
                        TimeUnit.MILLISECONDS));
                closing = true;
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
            slot.discarded = true;
        }
        slots.clear();
    }

    static final class Slot {
        private final boolean closeAfter;
        private FullHttpResponse response;
        private boolean discarded;

        private Slot(boolean closeAfter) {
            this.closeAfter = closeAfter;
        }
    }
}
