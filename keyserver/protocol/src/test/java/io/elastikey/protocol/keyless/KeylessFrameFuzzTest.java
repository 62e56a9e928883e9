// KeylessFrameFuzzTest -- coverage-guided fuzzing of the Keyless frame decoder (Jazzer; docs/security.md, "Fuzzing").
package io.elastikey.protocol.keyless;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Every byte a Keyless peer sends goes through {@link KeylessFrameDecoder} and {@link KeylessCodec#readBody}. For any
 * stream and body limit: the decoder emits only {@link KeylessMessage}s and {@link KeylessProblem}s and never throws
 * (a throw would close the connection without answering the request's ID); how TCP cuts the stream into reads changes
 * nothing; nothing follows a fatal problem; a message's items have their fixed lengths; and a message re-encoded as
 * the reference client writes it decodes to the same message. The first bytes of an input choose the limit and the
 * read size, the rest is the stream. Seeds: {@code KeylessFrameFuzzTestInputs/decodeFrames/}.
 */
class KeylessFrameFuzzTest {

    @FuzzTest
    void decodeFrames(FuzzedDataProvider data) {
        int limit = data.consumeBoolean() ? KeylessCodec.MAX_BODY_LENGTH : data.consumeInt(0, 2048);
        int readSize = data.consumeInt(1, 64);
        byte[] stream = data.consumeRemainingAsBytes();

        List<KeylessFrame> whole = decode(limit, stream, Math.max(1, stream.length));
        List<KeylessFrame> pieces = decode(limit, stream, readSize);
        assertThat(pieces).isEqualTo(whole);

        for (int i = 0; i < whole.size(); i++) {
            KeylessFrame frame = whole.get(i);
            if (frame instanceof KeylessProblem problem) {
                assertThat(problem.error()).isIn(KeylessError.FORMAT_ERROR, KeylessError.VERSION_MISMATCH);
                assertThat(problem.reason()).isNotBlank();
                if (problem.fatal()) {
                    assertThat(i).as("nothing after a fatal problem").isEqualTo(whole.size() - 1);
                }
            } else {
                assertRoundTrip((KeylessMessage) frame);
            }
        }
    }

    /** The frames the decoder emits for {@code stream} arriving in reads of {@code readSize} bytes. */
    private static List<KeylessFrame> decode(int limit, byte[] stream, int readSize) {
        EmbeddedChannel channel = new EmbeddedChannel(new KeylessFrameDecoder(limit));
        List<KeylessFrame> frames = new ArrayList<>();
        try {
            for (int at = 0; at < stream.length; at += readSize) {
                channel.writeInbound(Unpooled.wrappedBuffer(stream, at, Math.min(readSize, stream.length - at)));
                for (Object frame = channel.readInbound(); frame != null; frame = channel.readInbound()) {
                    frames.add((KeylessFrame) frame);
                }
            }
            channel.checkException();
        } finally {
            channel.finishAndReleaseAll();
        }
        return frames;
    }

    private static void assertRoundTrip(KeylessMessage message) {
        assertThat(message.opcode()).isBetween(0, 255);
        if (message.ski() != null) {
            assertThat(message.ski()).hasSize(20);
        }
        if (message.digest() != null) {
            assertThat(message.digest()).hasSize(32);
        }
        int payload = message.payload() == null ? 0 : message.payload().length + 3;
        if (4 + payload + 23 + 35 > KeylessCodec.MAX_BODY_LENGTH) {
            return; // a payload this long cannot be re-encoded beside every other item
        }
        ByteBuf out = Unpooled.buffer();
        try {
            KeylessCodec.writeRequest(out, message.id(), message.opcode(), message.ski(), message.digest(),
                    message.payload());
            List<KeylessFrame> again = decode(KeylessCodec.MAX_BODY_LENGTH, readAll(out), out.writerIndex());
            assertThat(again).containsExactly(message);
        } finally {
            out.release();
        }
    }

    private static byte[] readAll(ByteBuf buf) {
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
