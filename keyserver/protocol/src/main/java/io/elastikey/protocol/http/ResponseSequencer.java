// ResponseSequencer -- HTTP/1.1 answers leave a connection in the order its requests came.
package io.elastikey.protocol.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * Keeps HTTP/1.1 answers in request order. Requests on one connection may be pipelined and finish in any order (the
 * key server's crypto on its worker pool, the edge's cache hit before the origin's miss); HTTP/1.1 has no request
 * IDs, so an answer that is ready early waits for the ones before it. Both servers use this one class.
 *
 * <p>Confined to the channel's event loop. Where HTTP/2 streams are channels of their own (the edge), each has a
 * single request, so the sequencer only ever holds one answer there. A handler with state of its own keeps one per
 * instance; a sharable handler takes the channel's with {@link #of(Channel)}.
 */
public final class ResponseSequencer {
    private static final AttributeKey<ResponseSequencer> KEY =
            AttributeKey.valueOf(ResponseSequencer.class, "responses");

    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private boolean closing;

    /** The channel's sequencer, created on first use. On the channel's loop. */
    public static ResponseSequencer of(Channel channel) {
        Attribute<ResponseSequencer> attr = channel.attr(KEY);
        ResponseSequencer sequencer = attr.get();
        if (sequencer == null) {
            sequencer = new ResponseSequencer();
            attr.set(sequencer);
        }
        return sequencer;
    }

    /** Reserves the next place in line; {@code closeAfter}: the connection closes once this answer is written. */
    public Slot reserve(boolean closeAfter) {
        Slot slot = new Slot(this, closeAfter);
        if (closing) {
            slot.discarded = true; // arrived after the answer that closes the connection
        } else {
            slots.addLast(slot);
        }
        return slot;
    }

    /** Whether the connection's last answer has been written; later requests are not served. */
    public boolean closing() {
        return closing;
    }

    /** Fills {@code slot} and writes every answer that is now first in line. Takes ownership of the response. */
    public void complete(ChannelHandlerContext ctx, Slot slot, FullHttpResponse response) {
        if (slot.discarded) {
            // Its connection closed after an earlier answer; nobody will write this one.
            ReferenceCountUtil.release(response);
            return;
        }
        slot.response = response;
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().response != null) {
            Slot head = slots.pollFirst();
            // Say so either way: an HTTP/1.1 client would send its next request on a closing connection, and an
            // HTTP/1.0 client closes unless told to keep the connection.
            HttpUtil.setKeepAlive(head.response, !head.closeAfter);
            var future = ctx.write(head.response);
            head.response = null;
            wrote = true;
            if (head.closeAfter) {
                future.addListener(f -> LingeringClose.begin(ctx));
                closing = true;
                discardRemaining();
                break;
            }
        }
        if (wrote) {
            ConnectionFlush.flush(ctx);
        }
    }

    /** The connection closed (or is closing): answers still pending will never be written, and are freed. */
    public void discardRemaining() {
        closing = true;
        for (Slot slot : slots) {
            ReferenceCountUtil.release(slot.response);
            slot.response = null;
            slot.discarded = true;
        }
        slots.clear();
    }

    /** One request's place in line; completing it completes it in its sequencer. */
    public static final class Slot implements AnswerPlace {
        private final ResponseSequencer sequencer;
        private final boolean closeAfter;
        private FullHttpResponse response;
        private boolean discarded;

        private Slot(ResponseSequencer sequencer, boolean closeAfter) {
            this.sequencer = sequencer;
            this.closeAfter = closeAfter;
        }

        @Override
        public void complete(ChannelHandlerContext ctx, FullHttpResponse answer) {
            sequencer.complete(ctx, this, answer);
        }
    }
}
