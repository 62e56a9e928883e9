// CircuitBreakerTest -- every transition of the breaker, with a clock moved by hand.
package io.elastikey.edge.keyservers;

import static io.elastikey.edge.keyservers.BreakerState.CLOSED;
import static io.elastikey.edge.keyservers.BreakerState.HALF_OPEN;
import static io.elastikey.edge.keyservers.BreakerState.OPEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class CircuitBreakerTest {
    private static final long OPEN_NANOS = 2_000;
    private static final long MAX_OPEN_NANOS = 7_000;

    private long now = 1_000_000;
    private final List<String> transitions = new ArrayList<>();
    private final CircuitBreaker breaker = new CircuitBreaker(3, OPEN_NANOS, MAX_OPEN_NANOS, () -> now,
            (from, to) -> transitions.add(from + "->" + to));

    @Test
    void staysClosedBelowTheThresholdAndASuccessResetsTheCount() {
        breaker.onFailure(false);
        breaker.onFailure(false);
        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(breaker.consecutiveFailures()).isEqualTo(2);

        breaker.onSuccess(false);
        breaker.onFailure(false);
        breaker.onFailure(false);

        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(breaker.consecutiveFailures()).isEqualTo(2);
        assertThat(transitions).isEmpty();
    }

    @Test
    void opensAfterThresholdFailuresInARow() {
        failTimes(3);

        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(breaker.isClosed()).isFalse();
        assertThat(transitions).containsExactly("CLOSED->OPEN");
        assertThat(breaker.nanosUntilTrial()).isEqualTo(OPEN_NANOS);
    }

    @Test
    void grantsNoTrialBeforeTheOpenDurationHasPassed() {
        failTimes(3);
        now += OPEN_NANOS - 1;

        assertThat(breaker.tryTrial()).isFalse();
        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(breaker.nanosUntilTrial()).isEqualTo(1);
    }

    @Test
    void grantsExactlyOneTrialOnceTheOpenDurationHasPassed() {
        failTimes(3);
        now += OPEN_NANOS;

        assertThat(breaker.nanosUntilTrial()).isZero();
        assertThat(breaker.tryTrial()).isTrue();
        assertThat(breaker.tryTrial()).isFalse();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN");
    }

    @Test
    void aSuccessfulTrialClosesTheBreakerAndResetsTheCount() {
        failTimes(3);
        now += OPEN_NANOS;
        breaker.tryTrial();

        breaker.onSuccess(true);

        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(breaker.consecutiveFailures()).isZero();
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
        assertThat(breaker.tryTrial()).isFalse();
    }

    @Test
    void aFailedTrialReopensForTwiceAsLongUpToTheMaximum() {
        failTimes(3);
        long[] expected = {2 * OPEN_NANOS, MAX_OPEN_NANOS, MAX_OPEN_NANOS};
        for (long duration : expected) {
            now += breaker.nanosUntilTrial();
            assertThat(breaker.tryTrial()).isTrue();
            breaker.onFailure(true);
            assertThat(breaker.state()).isEqualTo(OPEN);
            assertThat(breaker.openNanos()).isEqualTo(duration);
            assertThat(breaker.nanosUntilTrial()).isEqualTo(duration);
        }
        assertThat(transitions).endsWith("OPEN->HALF_OPEN", "HALF_OPEN->OPEN");
    }

    @Test
    void closingResetsTheOpenDurationSoTheNextOpeningStartsShortAgain() {
        failTimes(3);
        now += OPEN_NANOS;
        breaker.tryTrial();
        breaker.onFailure(true);
        now += breaker.nanosUntilTrial();
        breaker.tryTrial();
        breaker.onSuccess(true);

        failTimes(3);

        assertThat(breaker.openNanos()).isEqualTo(OPEN_NANOS);
        assertThat(breaker.nanosUntilTrial()).isEqualTo(OPEN_NANOS);
    }

    @Test
    void staleResultsWhileOpenOrHalfOpenChangeNoState() {
        failTimes(3);
        breaker.onSuccess(false);
        breaker.onFailure(false);
        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(breaker.nanosUntilTrial()).isEqualTo(OPEN_NANOS);

        now += OPEN_NANOS;
        breaker.tryTrial();
        breaker.onSuccess(false);
        breaker.onFailure(false);

        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN");
    }

    @Test
    void aTrialResultWithoutATrialOutChangesNothing() {
        breaker.onFailure(true);
        breaker.onSuccess(true);

        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(transitions).isEmpty();
    }

    @Test
    void refusesSettingsThatMakeNoSense() {
        assertThatThrownBy(() -> new CircuitBreaker(0, 1, 1, () -> 0, (from, to) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CircuitBreaker(1, 0, 1, () -> 0, (from, to) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CircuitBreaker(1, 2, 1, () -> 0, (from, to) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private void failTimes(int count) {
        for (int i = 0; i < count; i++) {
            breaker.onFailure(false);
        }
    }
}
