package io.elastikey.scaleup.protocol;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ScaleUpJsonTest {

    private static ScaleUpRequest roundTrip(ScaleUpRequest r) throws Exception {
        byte[] line = ScaleUpJson.encodeRequest(r);
        assertThat(line[line.length - 1]).isEqualTo((byte) '\n');
        return ScaleUpJson.decodeRequest(line, 0, line.length - 1);
    }

    @Test
    void requestsRoundTrip() throws Exception {
        ScaleUpRequest r = ScaleUpRequest.rescale("ks-1.a_b", 1L << 40, "\"quoted\"\n\ttab é \u2028");
        assertThat(roundTrip(r)).isEqualTo(r);
        assertThat(roundTrip(ScaleUpRequest.status("a"))).isEqualTo(ScaleUpRequest.status("a"));
        assertThat(roundTrip(ScaleUpRequest.release("a"))).isEqualTo(ScaleUpRequest.release("a"));
        assertThat(new String(ScaleUpJson.encodeRequest(ScaleUpRequest.status("a")), StandardCharsets.UTF_8))
                .isEqualTo("{\"op\":\"status\",\"client\":\"a\"}\n");
    }

    @Test
    void theLongestRequestFitsInALine() {
        ScaleUpRequest worst = ScaleUpRequest.rescale("n".repeat(64), 1L << 40, "\u0001".repeat(256));
        assertThat(ScaleUpJson.encodeRequest(worst).length - 1).isLessThanOrEqualTo(ProtocolLimits.MAX_LINE_BYTES);
    }

    @Test
    void answersRoundTripAndALongMessageIsCutToFitTheLine() throws Exception {
        ScaleUpResponse a = new ScaleUpResponse(Status.PARTIAL, "ks", 5, 6, 7, "why");
        byte[] line = ScaleUpJson.encodeAnswer(a);
        assertThat(ScaleUpJson.decodeAnswer(line, 0, line.length - 1)).isEqualTo(a);
        String hostile = "\u0001\uD83D\uDE00".repeat(5000);
        byte[] cut = ScaleUpJson.encodeAnswer(new ScaleUpResponse(Status.ERROR, "", 0, 0, 0, hostile));
        assertThat(cut.length - 1).isLessThanOrEqualTo(ProtocolLimits.MAX_LINE_BYTES);
        ScaleUpResponse back = ScaleUpJson.decodeAnswer(cut, 0, cut.length - 1);
        assertThat(hostile).startsWith(back.message());
        assertThat(back.message()).isNotEmpty();
    }
}
