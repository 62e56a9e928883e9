// KeylessFrameDecoder -- cuts the byte stream into Keyless frames and reads each body's items.
package io.elastikey.protocol.keyless;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * The first protocol step of a Keyless connection, for servers and clients alike: emits one {@link KeylessFrame} per
 * message.
 *
 * <p>Failures are frames too, so the next step answers them with the request's ID: a body that breaks the item
 * rules, or one longer than the limit (skipped without being buffered), fails only its own request, since the
 * header still says where the next frame starts. A header of another major version is answered with
 * {@code version mismatch} and ends the stream: its layout is not ours, so nothing after it can be trusted to be a
 * frame boundary (the old version-2 header, for one, is longer). After that the decoder discards everything.
 */
public final class KeylessFrameDecoder extends ByteToMessageDecoder {
    private final int maxBodyLength;
    private int discarding;
    private boolean broken;

    /** @param maxBodyLength the longest body buffered and read; longer ones are skipped and answered with an error */
    public KeylessFrameDecoder(int maxBodyLength) {
        this.maxBodyLength = maxBodyLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (discarding > 0) {
            int skip = Math.min(discarding, in.readableBytes());
            in.skipBytes(skip);
            discarding -= skip;
            return;
        }
        if (in.readableBytes() < KeylessCodec.HEADER_LENGTH) {
            return;
        }
        int start = in.readerIndex();
        int major = in.getUnsignedByte(start);
        int length = in.getUnsignedShort(start + 2);
        int id = in.getInt(start + 4);
        if (major != KeylessCodec.MAJOR_VERSION) {
            broken = true;
            in.skipBytes(in.readableBytes());
            out.add(new KeylessProblem(id, KeylessError.VERSION_MISMATCH, "a header of major version " + major, true));
            return;
        }
        if (length > maxBodyLength) {
            in.skipBytes(KeylessCodec.HEADER_LENGTH);
            discarding = length;
            out.add(new KeylessProblem(id, KeylessError.FORMAT_ERROR, "a body of " + length
                    + " bytes, over the limit of " + maxBodyLength, false));
            return;
        }
        if (in.readableBytes() < KeylessCodec.HEADER_LENGTH + length) {
            return;
        }
        in.skipBytes(KeylessCodec.HEADER_LENGTH);
        ByteBuf body = in.readSlice(length);
        try {
            out.add(KeylessCodec.readBody(id, body));
        } catch (KeylessFormatException e) {
            out.add(new KeylessProblem(id, KeylessError.FORMAT_ERROR, e.getMessage(), false));
        }
    }
}
