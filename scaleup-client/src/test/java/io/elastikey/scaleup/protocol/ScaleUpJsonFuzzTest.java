// ScaleUpJsonFuzzTest -- coverage-guided fuzzing of the scale-up protocol's JSON lines (Jazzer; docs/security.md).
package io.elastikey.scaleup.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.elastikey.scaleup.ScaleUpResponse;

/**
 * The scaleupd agent decodes every request line with {@link ScaleUpJson#decodeRequest} and the Java client
 * ({@code SocketScaleUpClient}) every answer line with {@link ScaleUpJson#decodeAnswer}; both come from a socket.
 * The first byte of an input picks which decoder reads the rest. Whatever the line: the decoder returns a value or
 * throws {@link MalformedMessageException} with a message, never anything else (the agent would close the connection
 * instead of answering {@code error}); and a decoded value, encoded again, decodes to an equal value. Seeds:
 * {@code ScaleUpJsonFuzzTestInputs/decodeLine/}.
 */
class ScaleUpJsonFuzzTest {

    @FuzzTest
    @DictionaryEntries({"\"op\"", "\"client\"", "\"memory_mb\"", "\"reason\"", "\"rescale\"", "\"status\"",
            "\"release\"", "\"granted\"", "\"partial\"", "\"denied\"", "\"error\"", "\"granted_mb\"",
            "\"pool_free_mb\"", "\"elapsed_us\"", "\"message\""})
    void decodeLine(byte[] input) {
        if (input.length == 0) {
            return;
        }
        boolean request = (input[0] & 1) == 0;
        byte[] line = Arrays.copyOfRange(input, 1, input.length);
        try {
            if (request) {
                ScaleUpRequest decoded = ScaleUpJson.decodeRequest(line, 0, line.length);
                byte[] again = ScaleUpJson.encodeRequest(decoded);
                assertThat(again[again.length - 1]).isEqualTo((byte) '\n');
                assertThat(ScaleUpJson.decodeRequest(again, 0, again.length - 1)).isEqualTo(decoded);
            } else {
                ScaleUpResponse decoded = ScaleUpJson.decodeAnswer(line, 0, line.length);
                byte[] again = ScaleUpJson.encodeAnswer(decoded);
                assertThat(again.length - 1).isLessThanOrEqualTo(ProtocolLimits.MAX_LINE_BYTES);
                ScaleUpResponse back = ScaleUpJson.decodeAnswer(again, 0, again.length - 1);
                assertThat(back.status()).isEqualTo(decoded.status());
                assertThat(back.client()).isEqualTo(decoded.client());
                assertThat(back.grantedMb()).isEqualTo(decoded.grantedMb());
                assertThat(back.poolFreeMb()).isEqualTo(decoded.poolFreeMb());
                assertThat(back.elapsedUs()).isEqualTo(decoded.elapsedUs());
                assertThat(decoded.message()).startsWith(back.message()); // a long message is cut to fit the line
            }
        } catch (MalformedMessageException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
