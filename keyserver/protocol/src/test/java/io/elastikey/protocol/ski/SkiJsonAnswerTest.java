// SkiJsonAnswerTest -- answer bodies: exact shapes, and how a client reads status and text into outputs and errors.
package io.elastikey.protocol.ski;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class SkiJsonAnswerTest {
    private static final byte[] OUTPUT = {0, 1, 2, (byte) 0xff, 0x7f};

    @Test
    void encodesAnOutputAsPaddedStandardBase64() {
        assertThat(text(SkiJson.encodeOutput(new byte[] {(byte) 0xfb, (byte) 0xff})))
                .isEqualTo("{\"output\":\"+/8=\"}");
    }

    @Test
    void anOutputSurvivesARoundTripThroughABuffer() throws Exception {
        ByteBuf body = Unpooled.directBuffer();
        try {
            SkiJson.encodeOutput(OUTPUT, body);

            assertThat(SkiJson.decodeAnswer(200, body)).isEqualTo(OUTPUT);
            assertThat(body.readerIndex()).isZero();
        } finally {
            body.release();
        }
    }

    @Test
    void encodesErrorsWithTheirExactText() {
        assertThat(text(SkiJson.encodeError(SkiError.MALFORMED_REQUEST)))
                .isEqualTo("{\"error\":\"malformed request\"}");
        assertThat(text(SkiJson.encodeError(SkiError.SPKI_NOT_FOUND))).isEqualTo("{\"error\":\"spki not found\"}");
        assertThat(text(SkiJson.encodeError(SkiError.OVERLOADED))).isEqualTo("{\"error\":\"overloaded\"}");
    }

    @Test
    void errorBodiesHandedOutCannotBeChangedByTheirReceiver() {
        SkiJson.encodeError(SkiError.REQUEST_DENIED)[2] = 'X';

        assertThat(text(SkiJson.encodeError(SkiError.REQUEST_DENIED))).isEqualTo("{\"error\":\"request denied\"}");
        ByteBuf out = Unpooled.buffer();
        SkiJson.encodeError(SkiError.REQUEST_DENIED, out);
        assertThat(out.toString(UTF_8)).isEqualTo("{\"error\":\"request denied\"}");
    }

    @ParameterizedTest
    @EnumSource(SkiError.class)
    void everyErrorAnswerBecomesItsSkiException(SkiError error) {
        assertThatThrownBy(() -> SkiJson.decodeAnswer(error.status(), SkiJson.encodeError(error)))
                .isInstanceOfSatisfying(SkiException.class, e -> assertThat(e.error()).isEqualTo(error));
    }

    @Test
    void theTextDecidesWhenStatusAndTextDisagree() {
        assertThatThrownBy(() -> SkiJson.decodeAnswer(500, bytes("{\"error\":\"spki not found\"}")))
                .isInstanceOfSatisfying(SkiException.class,
                        e -> assertThat(e.error()).isEqualTo(SkiError.SPKI_NOT_FOUND));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{\"error\":\"Service Unavailable\"}", "<html>busy</html>", "{\"error\":7}"})
    void theStatusNamesTheErrorWhenTheBodyDoesNot(String body) {
        assertThatThrownBy(() -> SkiJson.decodeAnswer(503, bytes(body)))
                .isInstanceOfSatisfying(SkiException.class, e -> assertThat(e.error()).isEqualTo(SkiError.OVERLOADED));
    }

    @ParameterizedTest
    @ValueSource(ints = {502, 504, 302, 401})
    void aStatusOfNoSkiErrorWithoutAnSkiTextIsABadAnswer(int status) {
        assertThatThrownBy(() -> SkiJson.decodeAnswer(status, bytes("<html>Bad Gateway</html>")))
                .isInstanceOfSatisfying(SkiTransportException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.BAD_ANSWER));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{}", "{\"output\":null}", "{\"output\":\"***\"}", "{\"output\":\"AAEC\"} x",
            "{\"output\":\"AAEC\"", "[\"AAEC\"]", "{\"result\":\"AAEC\"}"})
    void aSuccessWithoutAValidOutputIsABadAnswer(String body) {
        assertThatThrownBy(() -> SkiJson.decodeAnswer(200, bytes(body)))
                .isInstanceOfSatisfying(SkiTransportException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.BAD_ANSWER));
    }

    @Test
    void aBadAnswerNeverQuotesTheBody() {
        assertThatThrownBy(() -> SkiJson.decodeAnswer(502, bytes("{\"output\":\"SECRETSECRET\"}")))
                .hasMessageNotContaining("SECRET");
    }

    @Test
    void skipsUnknownFieldsOfAnAnswer() throws Exception {
        assertThat(SkiJson.decodeAnswer(200, bytes("{\"id\":3,\"meta\":{\"ms\":[1,2]},\"output\":\"AAEC\"}")))
                .containsExactly(0, 1, 2);
    }

    @Test
    void acceptsAnOutputWithoutPadding() throws Exception {
        assertThat(SkiJson.decodeAnswer(200, bytes("{\"output\":\"+/8\"}"))).containsExactly(0xfb, 0xff);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, UTF_8);
    }
}
