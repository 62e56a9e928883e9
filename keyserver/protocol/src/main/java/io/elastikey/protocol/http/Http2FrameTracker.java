// Http2FrameTracker -- follows HTTP/2 frame boundaries in the bytes a client sends, to time unfinished frames.
package io.elastikey.protocol.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Sits before the HTTP/2 codec and reads only the framing (RFC 9113 section 4.1: a 9-byte header whose first three
 * bytes are the payload length) to know whether the client has left something unfinished: the connection preface,
 * a frame, or a header block whose HEADERS frame lacks END_HEADERS and whose CONTINUATION frames trickle in. While
 * something is unfinished the {@link RequestReadTimer} runs; at a frame boundary it stops. Complete frames, however
 * slowly they come, are the per-stream timers' business, so an idle connection sending a WINDOW_UPDATE now and then
 * is left alone. Payloads are skipped without being looked at; the codec still checks everything.
 */
final class Http2FrameTracker extends ChannelInboundHandlerAdapter {
    private static final int PREFACE_LENGTH = 24;
    private static final int HEADER_LENGTH = 9;
    private static final int TYPE_HEADERS = 0x1;
    private static final int TYPE_PUSH_PROMISE = 0x5;
    private static final int TYPE_CONTINUATION = 0x9;
    private static final int FLAG_END_HEADERS = 0x4;

    private final RequestReadTimer timer;
    private final byte[] header = new byte[HEADER_LENGTH];
    private int prefaceLeft = PREFACE_LENGTH;
    private int headerFill;
    private long payloadLeft;
    private boolean inHeaderBlock;

    Http2FrameTracker(RequestReadTimer timer) {
        this.timer = timer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer.bind(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
            scan(bytes);
            if (unfinished()) {
                timer.start();
            } else {
                timer.stop();
            }
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        timer.cancel();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.cancel();
    }

    /** Advances over {@code bytes} without consuming them. */
    void scan(ByteBuf bytes) {
        int i = bytes.readerIndex();
        int end = bytes.writerIndex();
        while (i < end) {
            if (prefaceLeft > 0) {
                int n = Math.min(prefaceLeft, end - i);
                prefaceLeft -= n;
                i += n;
            } else if (payloadLeft > 0) {
                int n = (int) Math.min(payloadLeft, end - i);
                payloadLeft -= n;
                i += n;
            } else {
                header[headerFill++] = bytes.getByte(i++);
                if (headerFill == HEADER_LENGTH) {
                    frameHeader();
                }
            }
        }
    }

    private void frameHeader() {
        headerFill = 0;
        payloadLeft = (header[0] & 0xffL) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
        int type = header[3] & 0xff;
        boolean endHeaders = (header[4] & FLAG_END_HEADERS) != 0;
        if (type == TYPE_HEADERS || type == TYPE_PUSH_PROMISE || type == TYPE_CONTINUATION) {
            inHeaderBlock = !endHeaders;
        }
    }

    /** Whether the client has begun something it has not finished. */
    boolean unfinished() {
        return prefaceLeft > 0 && prefaceLeft < PREFACE_LENGTH || headerFill > 0 || payloadLeft > 0 || inHeaderBlock;
    }
}
