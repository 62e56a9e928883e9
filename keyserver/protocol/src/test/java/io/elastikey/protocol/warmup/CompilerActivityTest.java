package io.elastikey.protocol.warmup;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static io.elastikey.protocol.warmup.CompilerActivity.QUIET_MILLIS;
import static io.elastikey.protocol.warmup.CompilerActivity.WINDOW_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

class CompilerActivityTest {
    private final AtomicLong compiled = new AtomicLong(5_000);

    @Test
    void busyCompilersAreNotQuietHoweverLongTheyRun() {
        CompilerActivity activity = new CompilerActivity(0, compiled::get);
        for (int window = 1; window <= 30; window++) {
            compiled.addAndGet(900);
            assertThat(activity.quiet(window * WINDOW_NANOS)).as("window %d", window).isFalse();
        }
    }

    @Test
    void twoWholeQuietWindowsInARowMakeQuiet() {
        CompilerActivity activity = new CompilerActivity(0, compiled::get);
        compiled.addAndGet(1_000);
        assertThat(activity.quiet(WINDOW_NANOS)).isFalse();
        compiled.addAndGet(QUIET_MILLIS - 1);
        assertThat(activity.quiet(2 * WINDOW_NANOS)).as("one quiet window").isFalse();
        assertThat(activity.quiet(3 * WINDOW_NANOS - 1)).as("the second not over yet").isFalse();
        assertThat(activity.quiet(3 * WINDOW_NANOS)).as("two quiet windows").isTrue();
        assertThat(activity.quiet(3 * WINDOW_NANOS + 1)).as("and stays so within the window").isTrue();
    }

    @Test
    void aBusyWindowBetweenQuietOnesStartsTheCountAgain() {
        CompilerActivity activity = new CompilerActivity(0, compiled::get);
        assertThat(activity.quiet(WINDOW_NANOS)).isFalse();
        compiled.addAndGet(QUIET_MILLIS);
        assertThat(activity.quiet(2 * WINDOW_NANOS)).as("exactly the threshold is busy").isFalse();
        assertThat(activity.quiet(3 * WINDOW_NANOS)).isFalse();
        assertThat(activity.quiet(4 * WINDOW_NANOS)).isTrue();
    }

    @Test
    void askingOftenWithinAWindowDoesNotShortenIt() {
        CompilerActivity activity = new CompilerActivity(0, compiled::get);
        for (long now = 1; now < 2 * WINDOW_NANOS; now += WINDOW_NANOS / 1000) {
            assertThat(activity.quiet(now)).isFalse();
        }
    }

    @Test
    void aJvmThatDoesNotReportItsCompilingIsNeverQuietSoTheWarmUpRunsItsWholeBudget() {
        CompilerActivity activity = new CompilerActivity(0, () -> -1);
        for (int window = 1; window <= 10; window++) {
            assertThat(activity.quiet(window * WINDOW_NANOS)).isFalse();
        }
    }

    @Test
    void thisJvmReportsItsCompilingTime() {
        assertThat(CompilerActivity.millisSoFar()).as("HotSpot reports it; the warm-up relies on that")
                .isGreaterThanOrEqualTo(0);
    }
}
