// ResponseQueue -- HTTP/1.1 answers leave a connection in the order its requests came.
package io.elastikey.edge.content;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * A client may pipeline requests on one HTTP/1.1 connection, and a cache hit is ready at once while the miss before
 * it waits for the origin; HTTP/1.1 has no request ids, so an early answer waits for the ones before it. The queue
 * lives in a channel attribute so that {@link ContentHandler} itself stays stateless and shareable. Over HTTP/2
 * each stream is its own child channel with one request, so its queue only ever holds one answer.
 *
 * <p>Confined to the channel's event loop. Once an answer that closes the connection is written, later requests
 * are not served and answers still pending are released.
 */
final class ResponseQueue {
    private static final AttributeKey<ResponseQueue> KEY = AttributeKey.valueOf(ResponseQueue.class, "responses");

    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private boolean closing;

    /** The channel's queue, created on first use. On the channel's loop. */
    static ResponseQueue of(Channel channel) {
        Attribute<ResponseQueue> attr = channel.attr(KEY);
        ResponseQueue queue = attr.get();
        if (queue == null) {
            queue = new ResponseQueue();
            attr.set(queue);
        }
        return queue;
    }

    /** Whether the connection's last answer is out; later requests are ignored. */
    boolean closing() {
        return closing;
    }

    /** The next place in line; {@code closeAfter}: the connection closes once this answer is written. */
    Slot reserve(boolean closeAfter) {
        Slot slot = new Slot(closeAfter);
        slots.addLast(slot);
        return slot;
    }

    /** Fills {@code slot} and writes every answer now at the head of the line. Takes ownership of the response. */
    void complete(ChannelHandlerContext ctx, Slot slot, FullHttpResponse response) {
        if (slot.discarded) {
            ReferenceCountUtil.release(response);
            return;
        }
        slot.response = response;
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().response != null) {
            Slot head = slots.pollFirst();
            HttpUtil.setKeepAlive(head.response, !head.closeAfter);
            var written = ctx.write(head.response);
            head.response = null;
            wrote = true;
            if (head.closeAfter) {
                written.addListener(ChannelFutureListener.CLOSE);
                closing = true;
                discard();
                break;
            }
        }
        if (wrote) {
            ctx.flush();
        }
    }

    /** The connection closed: answers still pending will never be written. */
    void channelClosed() {
        closing = true;
        discard();
    }

    /** Releases answers that will never be written (the connection is closing or closed). */
    private void discard() {
        for (Slot slot : slots) {
            ReferenceCountUtil.release(slot.response);
            slot.response = null;
            slot.discarded = true;
        }
        slots.clear();
    }

    /** One request's place in line. */
    static final class Slot {
        private final boolean closeAfter;
        private FullHttpResponse response;
        private boolean discarded;

        private Slot(boolean closeAfter) {
            this.closeAfter = closeAfter;
        }
    }
}
