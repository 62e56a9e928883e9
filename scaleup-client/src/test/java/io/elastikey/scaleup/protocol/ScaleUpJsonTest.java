package io.elastikey.scaleup.protocol;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void watchAndPoolRequestsRoundTrip() throws Exception {
        assertThat(roundTrip(ScaleUpRequest.watch("store-a"))).isEqualTo(ScaleUpRequest.watch("store-a"));
        assertThat(roundTrip(ScaleUpRequest.pool("admin", 2048))).isEqualTo(ScaleUpRequest.pool("admin", 2048));
        assertThat(new String(ScaleUpJson.encodeRequest(ScaleUpRequest.pool("admin", 2048)), StandardCharsets.UTF_8))
                .isEqualTo("{\"op\":\"pool\",\"client\":\"admin\",\"memory_mb\":2048}\n");
        byte[] noSize = "{\"op\":\"pool\",\"client\":\"admin\"}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> ScaleUpJson.decodeRequest(noSize, 0, noSize.length))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("memory_mb");
    }

    @Test
    void giveBackRequestsRoundTripAndAreCheckedStrictly() throws Exception {
        io.elastikey.scaleup.GiveBackRequest g = new io.elastikey.scaleup.GiveBackRequest("store-a", 512, 800, 10_000,
                "the pool shrank \u00e9");
        byte[] line = ScaleUpJson.encodeGiveBack(g);
        assertThat(new String(line, StandardCharsets.UTF_8)).startsWith("{\"op\":\"give_back\",\"client\":\"store-a\","
                + "\"memory_mb\":512,\"granted_mb\":800,\"deadline_ms\":10000,\"reason\":");
        assertThat(ScaleUpJson.decodeGiveBack(line, 0, line.length - 1)).isEqualTo(g);
        assertThat(g.giveBackMb()).isEqualTo(288);
        for (String bad : new String[] {
            "{\"op\":\"give_back\",\"client\":\"a\",\"memory_mb\":1,\"granted_mb\":2,\"reason\":\"\"}",
            "{\"op\":\"status\",\"client\":\"a\",\"memory_mb\":1,\"granted_mb\":2,\"deadline_ms\":1,\"reason\":\"\"}",
            "{\"op\":\"give_back\",\"client\":\"a\",\"memory_mb\":-1,\"granted_mb\":2,\"deadline_ms\":1,\"reason\":\"\"}",
            "{\"op\":\"give_back\",\"client\":\"a b\",\"memory_mb\":1,\"granted_mb\":2,\"deadline_ms\":1,\"reason\":\"\"}",
            "{\"op\":\"give_back\",\"op\":\"give_back\",\"client\":\"a\",\"memory_mb\":1,\"granted_mb\":2,"
                    + "\"deadline_ms\":1,\"reason\":\"\"}",
        }) {
            byte[] b = bad.getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> ScaleUpJson.decodeGiveBack(b, 0, b.length)).as(bad)
                    .isInstanceOf(MalformedMessageException.class);
        }
    }
}
