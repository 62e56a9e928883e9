package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The decoder in an EmbeddedChannel: bytes in, RespRequests or a protocol error out. */
class RespRequestDecoderTest {

    private static EmbeddedChannel channel(RespLimits limits) {
        return new EmbeddedChannel(new RespRequestDecoder(limits, new UnfinishedRequests(Long.MAX_VALUE)));
    }

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    @Test
    void commandsStillArrivingShareOneBudgetWhichAFinishedOrDroppedCommandGivesBack() {
        UnfinishedRequests budget = new UnfinishedRequests(100);
        EmbeddedChannel first = new EmbeddedChannel(new RespRequestDecoder(RespLimits.defaults(1024), budget));
        EmbeddedChannel second = new EmbeddedChannel(new RespRequestDecoder(RespLimits.defaults(1024), budget));
        EmbeddedChannel third = new EmbeddedChannel(new RespRequestDecoder(RespLimits.defaults(1024), budget));

        first.writeInbound(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$60\r\nstill sending")); // 61 held
        assertThatThrownBy(() -> second.writeInbound(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$60\r\n")))
                .isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: the server holds 100 bytes of requests still arriving, its limit; "
                        + "send this command again later");
        assertThat(budget.held()).isEqualTo(61);

        first.writeInbound(bytes("x".repeat(60 - "still sending".length()) + "\r\n"));
        RespRequest whole = first.readInbound();
        assertThat(whole.argc()).isEqualTo(3);
        assertThat(budget.held()).isZero();

        third.writeInbound(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$60\r\nhalf"));
        assertThat(budget.held()).isEqualTo(61);
        third.finishAndReleaseAll(); // the client went with its command half sent
        assertThat(budget.held()).isZero();
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
    }

    @Test
    void commandSplitAcrossReadsBecomesOneRequest() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        String wire = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n";
        for (char c : wire.toCharArray()) {
            ch.writeInbound(bytes(String.valueOf(c)));
        }
        RespRequest r = ch.readInbound();
        assertThat(r.command()).isEqualTo(Command.SET);
        assertThat(r.text(1)).isEqualTo("key");
        assertThat(r.text(2)).isEqualTo("value");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void arrayLongerThanTheLimitIsAProtocolErrorBeforeItsElementsArrive() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024).withMaxArrayLength(8));
        assertThatThrownBy(() -> ch.writeInbound(bytes("*9\r\n"))).isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: invalid multibulk length (9 elements; at most 8)");
        ch.writeInbound(bytes("$4\r\nPING\r\n")); // dropped: the connection is closing
        assertThat(ch.inboundMessages()).isEmpty();
        ch.finishAndReleaseAll();
    }

    @Test
    void bulkOverTheLimitIsRefusedAtItsHeader() {
        EmbeddedChannel ch = channel(RespLimits.defaults(16));
        assertThatThrownBy(() -> ch.writeInbound(bytes("*2\r\n$3\r\nGET\r\n$17\r\n")))
                .isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: invalid bulk length (17 bytes; at most 16)");
        ch.writeInbound(bytes("*1\r\n$4\r\nPING\r\n")); // dropped: the connection is closing
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void splitEolDoesNotLoseTheCommand() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        ch.writeInbound(bytes("*1\r\n$4\r\nPING\r"));
        ch.writeInbound(bytes("\n"));
        RespRequest r = ch.readInbound();
        assertThat(r.command()).isEqualTo(Command.PING);
        ch.finishAndReleaseAll();
    }

    @Test
    void commandNamesMatchInAnyCase() {
        assertThat(Command.lookup(ascii("elastic.Resize"))).isEqualTo(Command.ELASTIC_RESIZE);
        assertThat(Command.lookup(ascii("mGeT"))).isEqualTo(Command.MGET);
        assertThat(Command.lookup(ascii("GETX"))).isNull();
    }

    @Test
    void aLargeBulkArrivingInPiecesIsCopiedAsItComes() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1 << 20));
        byte[] value = new byte[100_000];
        new java.util.SplittableRandom(3).nextBytes(value);
        ch.writeInbound(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n"));
        for (int at = 0; at < value.length; at += 7_000) {
            ch.writeInbound(Unpooled.wrappedBuffer(value, at, Math.min(7_000, value.length - at)));
            assertThat(ch.inboundMessages()).isEmpty();
        }
        ch.writeInbound(bytes("\r\n*1\r\n$4\r\nPING\r\n"));
        RespRequest set = ch.readInbound();
        assertThat(set.argc()).isEqualTo(3);
        assertThat(set.bytes(2)).isEqualTo(value);
        assertThat(((RespRequest) ch.readInbound()).command()).isEqualTo(Command.PING);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void manyCommandsInOneReadAllComeOutInOrder() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        StringBuilder wire = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            String key = String.valueOf(i);
            wire.append(i % 2 == 0 ? "*2\r\n$3\r\nGET\r\n$" : "*2\r\n$3\r\ngEt\r\n$")
                    .append(key.length()).append("\r\n").append(key).append("\r\n");
        }
        ch.writeInbound(bytes(wire.toString()));
        for (int i = 0; i < 100; i++) {
            RespRequest r = ch.readInbound();
            assertThat(r.command()).isEqualTo(Command.GET);
            assertThat(r.text(1)).isEqualTo(String.valueOf(i));
        }
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void inlineCommandsSplitOnBlanksAndEmptyArraysAreSkipped() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        ch.writeInbound(bytes("*0\r\n*-1\r\n\r\n  SET \tk  v\r\nPING\n"));
        RespRequest set = ch.readInbound();
        assertThat(set.command()).isEqualTo(Command.SET);
        assertThat(set.argc()).isEqualTo(3);
        assertThat(set.text(1)).isEqualTo("k");
        assertThat(set.text(2)).isEqualTo("v");
        assertThat(((RespRequest) ch.readInbound()).command()).isEqualTo(Command.PING);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void inlineWordsMayBeQuotedAsForRedis() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        ch.writeInbound(bytes("SET \"a key\" 'a value'\r\n"));
        RespRequest set = ch.readInbound();
        assertThat(set.argc()).isEqualTo(3);
        assertThat(set.text(1)).isEqualTo("a key");
        assertThat(set.text(2)).isEqualTo("a value");
        assertThatThrownBy(() -> ch.writeInbound(bytes("SET \"a key\r\n"))).isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: unbalanced quotes in request");
        ch.finishAndReleaseAll();
    }

    @Test
    void malformedInputIsAProtocolErrorWithRedisText() {
        String[][] cases = {
            {"*x\r\n", "Protocol error: invalid multibulk length"},
            {"*-5\r\n", "Protocol error: invalid multibulk length"},
            {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
            {"*1\r\n$99999999999999999999\r\n", "Protocol error: invalid bulk length"},
            {"*2\r\n$3\r\nGET\r\n:5\r\n", "Protocol error: expected '$', got ':'"},
            {"$4\r\nPING\r\n", "Protocol error: expected '*', got '$'"},
            {"*1\r\n$4\r\nPINGXX", "Protocol error: bulk string without its CRLF"},
        };
        for (String[] c : cases) {
            EmbeddedChannel ch = channel(RespLimits.defaults(1024));
            assertThatThrownBy(() -> ch.writeInbound(bytes(c[0]))).as(c[0]).isInstanceOf(RespProtocolException.class)
                    .hasMessage(c[1]);
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void requestBytesAreBoundedAcrossArguments() {
        RespLimits limits = new RespLimits(1000, 16, 1500, 1024, 1024, 10, java.time.Duration.ZERO, 1, 1);
        EmbeddedChannel ch = channel(limits);
        String wire = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000\r\n" + "x".repeat(1000) + "\r\n"
                + "*3\r\n$3\r\nSET\r\n$800\r\n" + "k".repeat(800) + "\r\n$800\r\n";
        assertThatThrownBy(() -> ch.writeInbound(bytes(wire))).isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: request larger than 1500 bytes");
        RespRequest first = ch.readInbound();
        assertThat(first.bytes(2)).hasSize(1000);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aLineLongerThanTheLimitIsRefused() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        ch.writeInbound(bytes("A".repeat(60 * 1024)));
        assertThatThrownBy(() -> ch.writeInbound(bytes("A".repeat(5 * 1024)))).isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: too big inline request");
        ch.finishAndReleaseAll();
    }

    @Test
    void anInlineLineOfTheLongestLengthIsAcceptedHoweverItsBytesArrive() {
        // Found by fuzzing (RespRequestDecoderFuzzTestInputs/decode/inline-longest-line-split-after-cr): the line
        // was refused when a read ended between its CR and its LF, and accepted when the bytes came in one read.
        RespLimits limits = new RespLimits(1024, 16, 4096, 8, 16, 16, java.time.Duration.ZERO, 1, 1);
        String line = "GET 1234";
        EmbeddedChannel whole = channel(limits);
        whole.writeInbound(bytes(line + "\r\n"));
        EmbeddedChannel split = channel(limits);
        split.writeInbound(bytes(line + "\r"));
        split.writeInbound(bytes("\n"));
        for (EmbeddedChannel ch : new EmbeddedChannel[] {whole, split}) {
            RespRequest r = ch.readInbound();
            assertThat(r.command()).isEqualTo(Command.GET);
            assertThat(r.text(1)).isEqualTo("1234");
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void anInlineLineOneByteOverTheLimitIsRefusedHoweverItsBytesArrive() {
        RespLimits limits = new RespLimits(1024, 16, 4096, 8, 16, 16, java.time.Duration.ZERO, 1, 1);
        for (String[] reads : new String[][] {{"GET 12345\n"}, {"GET 12345", "\n"}, {"GET 12345\r\n"},
                {"GET 12345\r", "\n"}}) {
            EmbeddedChannel ch = channel(limits);
            assertThatThrownBy(() -> {
                for (String read : reads) {
                    ch.writeInbound(bytes(read));
                }
            }).isInstanceOf(RespProtocolException.class).hasMessage("Protocol error: too big inline request");
            assertThat((Object) ch.readInbound()).isNull();
            ch.finishAndReleaseAll();
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
