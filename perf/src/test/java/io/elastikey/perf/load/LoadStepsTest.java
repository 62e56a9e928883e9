package io.elastikey.perf.load;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadStepsTest {
    private static final long SECOND = LoadSteps.NANOS_PER_SECOND;

    @Test
    void stepsHoldRateTimesSecondsRequestsEach() {
        LoadSteps load = LoadSteps.parse("1000x20, 10000x60,20X45");

        assertThat(load.totalSeconds()).isEqualTo(125);
        assertThat(load.totalRequests()).isEqualTo(20_000 + 600_000 + 900);
        assertThat(load.toString()).isEqualTo("1000x20,10000x60,20x45");
    }

    @Test
    void requestsAreEvenlySpacedInsideAStepAndAStepStartsOnItsSecond() {
        LoadSteps load = LoadSteps.parse("4x2,2x1");

        assertThat(load.offsetNanos(0)).isZero();
        assertThat(load.offsetNanos(1)).isEqualTo(SECOND / 4);
        assertThat(load.offsetNanos(7)).isEqualTo(SECOND + 3 * SECOND / 4);
        assertThat(load.offsetNanos(8)).isEqualTo(2 * SECOND);
        assertThat(load.offsetNanos(9)).isEqualTo(2 * SECOND + SECOND / 2);
        assertThatThrownBy(() -> load.offsetNanos(10)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aStepWithoutRequestsIsAPause() {
        LoadSteps load = LoadSteps.parse("2x1,0x3,1x1");

        assertThat(load.offsetNanos(1)).isEqualTo(SECOND / 2);
        assertThat(load.offsetNanos(2)).isEqualTo(4 * SECOND);
        assertThat(load.dueBy(3 * SECOND)).isEqualTo(2);
        assertThat(load.dueBy(4 * SECOND)).isEqualTo(3);
        assertThat(load.rateAt(2)).isZero();
        assertThat(load.rateAt(4)).isEqualTo(1);
        assertThat(load.rateAt(5)).isZero();
    }

    @Test
    void dueByIsTheExactInverseOfOffsetNanos() {
        LoadSteps load = LoadSteps.parse("3x2,7x1,0x1,1000x1,999983x1");

        for (long i = 0; i < load.totalRequests(); i += 1 + i / 50) {
            long t = load.offsetNanos(i);
            assertThat(load.dueBy(t)).as("request %d at %d ns", i, t).isEqualTo(i + 1);
            assertThat(load.dueBy(t - 1)).as("request %d just before %d ns", i, t).isEqualTo(i);
        }
        assertThat(load.dueBy(-1)).isZero();
        assertThat(load.dueBy(load.totalSeconds() * SECOND)).isEqualTo(load.totalRequests());
    }

    @Test
    void badStepsAreRejectedWithTheText() {
        assertThatThrownBy(() -> LoadSteps.parse("1000")).hasMessageContaining("'1000' is not RATExSECONDS");
        assertThatThrownBy(() -> LoadSteps.parse("ax3")).hasMessageContaining("'ax3'");
        assertThatThrownBy(() -> LoadSteps.parse("10x0")).hasMessageContaining("1..86400 s, was 0");
        assertThatThrownBy(() -> LoadSteps.parse("-1x5")).hasMessageContaining("rate must be");
        assertThatThrownBy(() -> LoadSteps.parse("1x50000,1x50000")).hasMessageContaining("more than 86400");
    }
}
