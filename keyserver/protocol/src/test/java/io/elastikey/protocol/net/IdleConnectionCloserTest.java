package io.elastikey.protocol.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The idle timeout on the embedded event loop's own clock: a connection with nothing read or written for the timeout
 * is closed; each read or write gives it the whole timeout again, counted from that read or write, however the
 * timer was armed; a write keeps its void promise (no listener is hung on it); a closed connection's timer lapses.
 * The embedded clock also moves with real time, so every bound keeps a margin of a second.
 */
class IdleConnectionCloserTest {
    private static final long TIMEOUT_MILLIS = 10_000;

    private final EmbeddedChannel channel = new EmbeddedChannel(
            new IdleConnectionCloser(Duration.ofMillis(TIMEOUT_MILLIS)));

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aConnectionWithNothingReadOrWrittenIsClosedAfterTheTimeout() {
        assertOpenThenClosed(TIMEOUT_MILLIS - 1_000, 2_000);
    }

    @Test
    void aReadGivesTheWholeTimeoutAgainFromItself() {
        advance(6_000);
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {1})); // idle from here until 16 s

        advance(5_000); // 11 s: the first timer fired, 5 s after the read
        assertThat(channel.isOpen()).isTrue();
        assertOpenThenClosed(4_000, 2_000); // open at 15 s, closed at 17 s
    }

    @Test
    void aWriteCountsAsActivityAndKeepsItsVoidPromise() {
        advance(9_000);
        channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {2}), channel.voidPromise()); // idle until 19 s
        ByteBuf written = channel.readOutbound();
        assertThat(written.readByte()).isEqualTo((byte) 2);
        written.release();

        assertOpenThenClosed(9_000, 2_000); // open at 18 s, closed at 20 s
    }

    @Test
    void activityOnEveryTimerKeepsTheConnectionOpenForAsLongAsItGoesOn() {
        for (int i = 0; i < 20; i++) {
            advance(TIMEOUT_MILLIS / 2);
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {3}));
        }
        assertThat(channel.isOpen()).isTrue();

        advance(TIMEOUT_MILLIS + 1_000);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aClosedConnectionsTimerLapses() {
        channel.close();

        advance(2 * TIMEOUT_MILLIS);

        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.runScheduledPendingTasks()).as("no timer left").isEqualTo(-1);
    }

    @Test
    void theTimeoutMustBePositive() {
        assertThatThrownBy(() -> new IdleConnectionCloser(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Moves the clock {@code openFor} ms and checks the connection is open, then {@code closedWithin} more: closed. */
    private void assertOpenThenClosed(long openFor, long closedWithin) {
        advance(openFor);
        assertThat(channel.isOpen()).as("open %d ms on", openFor).isTrue();
        advance(closedWithin);
        assertThat(channel.isOpen()).as("closed %d ms later", closedWithin).isFalse();
    }

    /** Moves the clock in steps of 100 ms, running what is due at each, as a live event loop would. */
    private void advance(long millis) {
        for (long moved = 0; moved < millis; moved += 100) {
            channel.advanceTimeBy(Math.min(100, millis - moved), TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
            channel.runPendingTasks();
        }
    }
}
