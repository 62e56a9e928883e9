package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inline lines split as redis-server 7.0 splits them: each expected split below is what {@code redis-server}
 * answered to the same line sent by {@code nc} ({@code SET} of the words, read back with {@code GET}), words shown
 * joined by {@code |}.
 */
class InlineWordsTest {

    static Stream<Arguments> lines() {
        return Stream.of(
                Arguments.of("SET k v", "SET|k|v"),
                Arguments.of("  SET \t k   v  ", "SET|k|v"),
                Arguments.of("SET \"a b\" \"c d\"", "SET|a b|c d"),
                Arguments.of("SET 'a b' 'it\\'s'", "SET|a b|it's"),
                Arguments.of("SET a\"b c\" e", "SET|ab c|e"),
                Arguments.of("SET \"\" x", "SET||x"),
                Arguments.of("SET \"\\x41\\x7a\\n\" x", "SET|Az\n|x"),
                Arguments.of("SET \"\\q\\\\\\\"\" x", "SET|q\\\"|x"),
                Arguments.of("SET \"\\xZZ\" x", "SET|xZZ|x"),
                Arguments.of("SET 'no \\n escape' x", "SET|no \\n escape|x"));
    }

    @ParameterizedTest
    @MethodSource("lines")
    void linesSplitAsRedisSplitsThem(String line, String expected) {
        assertThat(String.join("|", words(line))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET \"a b", "SET 'a b", "SET \"a\"b c", "SET 'a'b c", "SET \"a\\\"", "SET a\"b c\"d e"})
    void anUnbalancedQuoteIsTheProtocolErrorRedisGives(String line) {
        assertThatThrownBy(() -> words(line)).isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: unbalanced quotes in request");
    }

    private static List<String> words(String line) {
        ByteBuf buf = Unpooled.copiedBuffer("xx" + line, StandardCharsets.ISO_8859_1);
        try {
            InlineWords.Split split = InlineWords.split(buf, 2, buf.writerIndex());
            List<String> out = new ArrayList<>();
            for (byte[] word : Arrays.copyOf(split.words(), split.count())) {
                out.add(new String(word, StandardCharsets.ISO_8859_1));
            }
            return out;
        } finally {
            buf.release();
        }
    }
}
