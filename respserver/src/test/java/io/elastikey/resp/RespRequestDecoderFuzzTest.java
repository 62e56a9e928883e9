// RespRequestDecoderFuzzTest -- coverage-guided fuzzing of the RESP request decoder (Jazzer; docs/security.md, "Fuzzing").
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Every byte a RESP client sends goes through {@link RespRequestDecoder}. For any stream and any limits: the decoder
 * emits only {@link RespRequest}s, and fails only with {@link RespProtocolException} (after which it emits nothing);
 * no argument is longer than the bulk limit and no command has more elements than the array limit; how TCP cuts the
 * stream into reads changes neither the requests nor whether it fails; and every request, written back as a
 * multibulk, decodes to itself. The first bytes of an input choose the limits and the read size (consumed from the
 * end, as Jazzer's data provider does), the rest is the stream. Seeds: {@code RespRequestDecoderFuzzTestInputs/decode/}.
 */
class RespRequestDecoderFuzzTest {

    @FuzzTest
    void decode(FuzzedDataProvider data) {
        RespLimits limits = data.consumeBoolean() ? RespLimits.defaults(1 << 20)
                : new RespLimits(data.consumeInt(1, 64), data.consumeInt(1, 8), data.consumeLong(1, 256),
                        data.consumeInt(1, 64), 16, 16, Duration.ZERO, 1, 1);
        int readSize = data.consumeInt(1, 32);
        byte[] stream = data.consumeRemainingAsBytes();

        Decoded whole = decode(limits, stream, Math.max(1, stream.length));
        Decoded pieces = decode(limits, stream, readSize);
        assertThat(pieces.failure == null).as("fails in pieces as it fails whole").isEqualTo(whole.failure == null);
        assertThat(pieces.requests).hasSameSizeAs(whole.requests);
        for (int i = 0; i < whole.requests.size(); i++) {
            assertSameRequest(pieces.requests.get(i), whole.requests.get(i));
        }
        for (RespRequest request : whole.requests) {
            assertThat(request.argc()).isPositive();
            assertThat(request.protocolError()).isNull();
            Decoded again = decode(limits, multibulk(request), Integer.MAX_VALUE);
            if (again.failure == null) {
                assertThat(again.requests).hasSize(1);
                assertSameRequest(again.requests.get(0), request);
            } else {
                // an inline command may have more words than the array limit, or words longer than the bulk limit
                assertThat(request.argc() > limits.maxArrayLength() || longestArgument(request) > limits.maxBulkBytes()
                        || totalBytes(request) > limits.maxRequestBytes()).as("re-encoded request refused").isTrue();
            }
        }
    }

    private record Decoded(List<RespRequest> requests, RespProtocolException failure) {
    }

    private static Decoded decode(RespLimits limits, byte[] stream, int readSize) {
        EmbeddedChannel channel = new EmbeddedChannel(
                new RespRequestDecoder(limits, new UnfinishedRequests(Long.MAX_VALUE)));
        List<RespRequest> requests = new ArrayList<>();
        RespProtocolException failure = null;
        try {
            for (int at = 0; at < stream.length; at += Math.min(readSize, stream.length - at)) {
                RespProtocolException thrown = null;
                try {
                    channel.writeInbound(Unpooled.wrappedBuffer(stream, at, Math.min(readSize, stream.length - at)));
                } catch (RespProtocolException e) {
                    assertThat(e.getMessage()).startsWith("Protocol error: ");
                    thrown = e;
                }
                // Requests complete before the error in the same read are passed on (and answered) first.
                for (Object request = channel.readInbound(); request != null; request = channel.readInbound()) {
                    assertThat(failure).as("a request after a protocol error").isNull();
                    requests.add((RespRequest) request);
                }
                if (failure == null) {
                    failure = thrown;
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        return new Decoded(requests, failure);
    }

    private static byte[] multibulk(RespRequest request) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + request.argc() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < request.argc(); i++) {
            out.writeBytes(("$" + request.bytes(i).length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(request.bytes(i));
            out.writeBytes(new byte[] {'\r', '\n'});
        }
        return out.toByteArray();
    }

    /** The same command and arguments; a known name may come back in its capitals. */
    private static void assertSameRequest(RespRequest actual, RespRequest expected) {
        assertThat(actual.command()).isEqualTo(expected.command());
        assertThat(actual.argc()).isEqualTo(expected.argc());
        assertThat(new String(actual.bytes(0), StandardCharsets.ISO_8859_1))
                .isEqualToIgnoringCase(new String(expected.bytes(0), StandardCharsets.ISO_8859_1));
        for (int i = 1; i < expected.argc(); i++) {
            assertThat(actual.bytes(i)).isEqualTo(expected.bytes(i));
        }
    }

    private static int longestArgument(RespRequest request) {
        int longest = 0;
        for (int i = 0; i < request.argc(); i++) {
            longest = Math.max(longest, request.bytes(i).length);
        }
        return longest;
    }

    private static long totalBytes(RespRequest request) {
        long total = 0;
        for (int i = 0; i < request.argc(); i++) {
            total += request.bytes(i).length;
        }
        return total;
    }
}
