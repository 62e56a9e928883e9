package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The decoding half of the pipeline in an EmbeddedChannel: bytes in, RespRequests or a protocol error out. */
class RespFrameGuardTest {

    private static EmbeddedChannel channel(RespLimits limits) {
        return new EmbeddedChannel(new RedisDecoder(limits.maxInlineBytes(), FixedRedisMessagePool.INSTANCE, true),
                new RespFrameGuard(limits), new RedisBulkStringAggregator(), new RedisArrayAggregator(limits.maxArrayLength(), 1),
                new RespCommandDecoder());
    }

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
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
        r.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void arrayLongerThanTheLimitIsAProtocolErrorBeforeItsElementsArrive() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024).withMaxArrayLength(8));
        assertThatThrownBy(() -> ch.writeInbound(bytes("*9\r\n"))).isInstanceOf(RespProtocolException.class)
                .hasMessage("Protocol error: invalid multibulk length");
        ch.writeInbound(bytes("$4\r\nPING\r\n")); // dropped: the connection is closing
        assertThat(ch.inboundMessages()).isEmpty();
        ch.finishAndReleaseAll();
    }

    @Test
    void bulkOverTheLimitIsRefusedAtItsHeader() {
        EmbeddedChannel ch = channel(RespLimits.defaults(16));
        assertThatThrownBy(() -> ch.writeInbound(bytes("*2\r\n$3\r\nGET\r\n$17\r\n")))
                .isInstanceOf(RespProtocolException.class).hasMessage("Protocol error: invalid bulk length");
        // The array aggregator still holds the half command and says so as the channel closes.
        assertThatThrownBy(ch::finishAndReleaseAll).isInstanceOf(PrematureChannelClosureException.class);
    }

    @Test
    void splitEolDoesNotLoseTheCommand() {
        EmbeddedChannel ch = channel(RespLimits.defaults(1024));
        ch.writeInbound(bytes("*1\r\n$4\r\nPING\r"));
        ch.writeInbound(bytes("\n"));
        RespRequest r = ch.readInbound();
        assertThat(r.command()).isEqualTo(Command.PING);
        r.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void commandNamesMatchInAnyCase() {
        assertThat(Command.lookup(bytes("elastic.Resize"))).isEqualTo(Command.ELASTIC_RESIZE);
        assertThat(Command.lookup(bytes("mGeT"))).isEqualTo(Command.MGET);
        assertThat(Command.lookup(bytes("GETX"))).isNull();
    }
}
