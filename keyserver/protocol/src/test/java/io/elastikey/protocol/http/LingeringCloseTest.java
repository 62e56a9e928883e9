package io.elastikey.protocol.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LingeringCloseTest {
    private final List<Object> reachedTheApplication = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reachedTheApplication.add(msg);
        }
    });
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();

    @Test
    void closesOnceTheClientHasSentNothingForAQuietPeriod() {
        LingeringClose.begin(ctx);

        // Half the period, not all but a millisecond: the embedded loop's clock also moves with real time, so a
        // loaded machine could use up that millisecond (as it did in RequestReadTimerTest).
        advance(LingeringClose.QUIET_MILLIS / 2);
        assertThat(channel.isOpen()).as("still lingering").isTrue();
        advance(LingeringClose.QUIET_MILLIS / 2);

        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void bytesStillArrivingKeepItOpenAndAreDiscardedUnread() {
        LingeringClose.begin(ctx);
        List<ByteBuf> sent = new ArrayList<>();

        for (int i = 0; i < 3; i++) {
            ByteBuf rest = Unpooled.copiedBuffer(new byte[] {'x', 'y'});
            sent.add(rest);
            channel.writeInbound(rest);
            advance(LingeringClose.QUIET_MILLIS);
            assertThat(channel.isOpen()).as("the client was still sending in period %d", i).isTrue();
        }
        advance(LingeringClose.QUIET_MILLIS);

        assertThat(channel.isOpen()).isFalse();
        assertThat(reachedTheApplication).isEmpty();
        assertThat(sent).allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
    }

    @Test
    void aClientThatNeverStopsSendingIsClosedAfterTheLongestLinger() {
        LingeringClose.begin(ctx);

        long waited = 0;
        while (channel.isOpen() && waited < 2 * LingeringClose.MAX_MILLIS) {
            channel.writeInbound(Unpooled.copiedBuffer(new byte[] {'z'}));
            advance(LingeringClose.QUIET_MILLIS / 2);
            waited += LingeringClose.QUIET_MILLIS / 2;
        }

        assertThat(channel.isOpen()).isFalse();
        assertThat(waited).isBetween(LingeringClose.MAX_MILLIS, LingeringClose.MAX_MILLIS + LingeringClose.QUIET_MILLIS);
    }

    @Test
    void beginningTwiceLingersOnce() {
        LingeringClose.begin(ctx);
        LingeringClose.begin(ctx);

        assertThat(channel.pipeline().toMap().values()).filteredOn(LingeringClose.class::isInstance).hasSize(1);
    }

    private void advance(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }
}
