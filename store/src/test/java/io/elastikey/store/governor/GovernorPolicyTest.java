// GovernorPolicyTest -- every rule of the policy: grow, hysteresis, cooldown, shrink, bounds, reserve.
package io.elastikey.store.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.governor.Decision.Kind;
import io.elastikey.store.governor.Decision.State;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GovernorPolicyTest {

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    /** min 128 MiB, max 1 GiB, +256 / -128 MiB, 3 ticks of 100 misses/s, 10 quiet ticks, 5-tick cooldown. */
    private static GovernorConfig.Builder config() {
        return GovernorConfig.builder().interval(Duration.ofSeconds(1)).minBudgetBytes(128 * MIB)
                .maxBudgetBytes(GIB).growStepBytes(256 * MIB).shrinkStepBytes(128 * MIB).growMissRate(100)
                .growAfterTicks(3).quietRequestRate(50).shrinkAfter(Duration.ofSeconds(10))
                .cooldown(Duration.ofSeconds(5)).reserveBytes(512 * MIB);
    }

    private final GovernorPolicy policy = new GovernorPolicy(config().build());

    /** A store with a full 256 MiB tier, 4 GiB of entries, 1,000 lookups/s and no misses; 16 GiB free. */
    private static SignalsBuilder signals() {
        return new SignalsBuilder();
    }

    static final class SignalsBuilder {
        long budget = 256 * MIB;
        long memoryBytes = 256 * MIB;
        long entries = 1_000_000;
        long memoryEntries = 60_000;
        long allEntries = 4 * GIB;
        double requestRate = 1_000;
        double missRate = 0;
        boolean resizing;
        long available = 16 * GIB;

        SignalsBuilder budget(long v) { budget = v; memoryBytes = v; return this; }
        SignalsBuilder memoryBytes(long v) { memoryBytes = v; return this; }
        SignalsBuilder memoryEntries(long v) { memoryEntries = v; return this; }
        SignalsBuilder allEntries(long v) { allEntries = v; return this; }
        SignalsBuilder requestRate(double v) { requestRate = v; return this; }
        SignalsBuilder missRate(double v) { missRate = v; return this; }
        SignalsBuilder resizing(boolean v) { resizing = v; return this; }
        SignalsBuilder available(long v) { available = v; return this; }
        SignalsBuilder pressure() { return missRate(500).requestRate(2_000); }
        SignalsBuilder quiet() { return requestRate(10).missRate(5); }

        Signals build() {
            double hitRatio = requestRate == 0 ? Double.NaN : 1 - missRate / requestRate;
            return new Signals(0, 1_000_000_000L, requestRate, missRate, hitRatio, 40_000, entries, memoryEntries,
                    memoryBytes, budget, allEntries, resizing, 300 * MIB, available);
        }
    }

    /** Runs {@code n} ticks of the same signals from {@code state}; returns the last decision. */
    private Decision run(int n, SignalsBuilder s, State state) {
        Decision d = null;
        for (int i = 0; i < n; i++) {
            d = policy.decide(s.build(), state);
            state = d.next();
        }
        return d;
    }

    @Test
    void steadyLoadHolds() {
        Decision d = run(20, signals(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.HOLD);
        assertThat(d.targetBytes()).isEqualTo(256 * MIB);
        assertThat(d.reason()).isEqualTo("steady");
    }

    // ---- grow ---------------------------------------------------------------------------------

    @Test
    void growsOneStepAfterThreeConsecutiveTicksUnderPressure() {
        Decision first = policy.decide(signals().pressure().build(), State.INITIAL);
        assertThat(first.kind()).isEqualTo(Kind.HOLD);
        assertThat(first.reason()).contains("under pressure (1/3");
        Decision second = policy.decide(signals().pressure().build(), first.next());
        assertThat(second.kind()).isEqualTo(Kind.HOLD);
        Decision third = policy.decide(signals().pressure().build(), second.next());
        assertThat(third.kind()).isEqualTo(Kind.GROW);
        assertThat(third.targetBytes()).isEqualTo(512 * MIB);
        assertThat(third.reason()).contains("500 misses/s for 3 ticks");
        assertThat(third.next()).isEqualTo(new State(0, 0, 5));
    }

    @Test
    void aTickWithoutPressureRestartsTheCount() {
        State s = run(2, signals().pressure(), State.INITIAL).next();
        s = policy.decide(signals().build(), s).next();
        assertThat(s.pressureTicks()).isZero();
        assertThat(run(2, signals().pressure(), s).kind()).isEqualTo(Kind.HOLD);
        assertThat(run(3, signals().pressure(), s).kind()).isEqualTo(Kind.GROW);
    }

    @Test
    void missRateBelowTheThresholdIsNoPressure() {
        assertThat(run(10, signals().missRate(99).requestRate(2_000), State.INITIAL).kind()).isEqualTo(Kind.HOLD);
        assertThat(run(3, signals().missRate(100).requestRate(2_000), State.INITIAL).kind()).isEqualTo(Kind.GROW);
    }

    @Test
    void noGrowWhileTheTierHasRoom() {
        Decision d = run(10, signals().pressure().memoryBytes(200 * MIB), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.HOLD);
        assertThat(run(3, signals().pressure().memoryBytes(231 * MIB), State.INITIAL).kind()).isEqualTo(Kind.GROW);
    }

    @Test
    void noGrowWhenEveryEntryIsAlreadyInMemory() {
        assertThat(run(10, signals().pressure().memoryEntries(1_000_000), State.INITIAL).kind())
                .isEqualTo(Kind.HOLD);
        assertThat(run(10, signals().pressure().allEntries(250 * MIB), State.INITIAL).kind()).isEqualTo(Kind.HOLD);
    }

    @Test
    void growStopsAtWhatHoldsEveryEntryPlusHeadroom() {
        Decision d = run(3, signals().pressure().allEntries(300 * MIB), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.targetBytes()).isEqualTo(315 * MIB); // 300 MiB + 5%
    }

    @Test
    void growStopsAtTheMaximum() {
        Decision d = run(3, signals().pressure().budget(900 * MIB), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.targetBytes()).isEqualTo(GIB);
        Decision atMax = run(10, signals().pressure().budget(GIB), State.INITIAL);
        assertThat(atMax.kind()).isEqualTo(Kind.HOLD);
        assertThat(atMax.reason()).contains("at the maximum");
    }

    @Test
    void growNeverAsksForMoreThanTheMachineCanSpare() {
        // 600 MiB available, 512 MiB reserve: 88 MiB to spare.
        Decision d = run(3, signals().pressure().available(600 * MIB), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.targetBytes()).isEqualTo(256 * MIB + 88 * MIB);
    }

    @Test
    void growHoldsWhenTheMachineHasNothingToSpare() {
        Decision d = run(5, signals().pressure().available(512 * MIB), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.HOLD);
        assertThat(d.reason()).contains("no memory to spare");
    }

    @Test
    void unknownAvailableMemoryDoesNotCapTheGrow() {
        Decision d = run(3, signals().pressure().available(-1), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.targetBytes()).isEqualTo(512 * MIB);
    }

    @Test
    void growAfterOneTickWhenConfiguredSo() {
        GovernorPolicy eager = new GovernorPolicy(config().growAfterTicks(1).build());
        assertThat(eager.decide(signals().pressure().build(), State.INITIAL).kind()).isEqualTo(Kind.GROW);
    }

    // ---- cooldown -----------------------------------------------------------------------------

    @Test
    void cooldownHoldsBackTheNextGrowThenLetsItThrough() {
        State s = run(3, signals().pressure(), State.INITIAL).next(); // grew: cooldown 5
        for (int i = 4; i >= 1; i--) {
            Decision d = policy.decide(signals().pressure().budget(512 * MIB).build(), s);
            assertThat(d.kind()).isEqualTo(Kind.HOLD);
            if (s.pressureTicks() >= 2) {
                assertThat(d.reason()).contains("cooling down (" + i + " ticks left)");
            }
            s = d.next();
        }
        Decision after = policy.decide(signals().pressure().budget(512 * MIB).build(), s);
        assertThat(after.kind()).isEqualTo(Kind.GROW);
        assertThat(after.targetBytes()).isEqualTo(768 * MIB);
    }

    @Test
    void cooldownHoldsBackAShrinkToo() {
        State s = new State(0, 9, 3);
        Decision d = policy.decide(signals().quiet().build(), s);
        assertThat(d.kind()).isEqualTo(Kind.HOLD);
        assertThat(d.reason()).contains("quiet for 10 ticks").contains("cooling down (2 ticks left)");
        d = run(2, signals().quiet(), d.next());
        assertThat(d.kind()).isEqualTo(Kind.SHRINK);
    }

    @Test
    void noCooldownWhenConfiguredZero() {
        GovernorPolicy p = new GovernorPolicy(config().cooldown(Duration.ZERO).growAfterTicks(1).build());
        Decision d = p.decide(signals().pressure().build(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(p.decide(signals().pressure().budget(512 * MIB).build(), d.next()).kind()).isEqualTo(Kind.GROW);
    }

    // ---- shrink -------------------------------------------------------------------------------

    @Test
    void shrinksOneStepAfterTheQuietPeriod() {
        assertThat(run(9, signals().quiet(), State.INITIAL).reason()).isEqualTo("quiet (9/10 ticks)");
        Decision d = run(10, signals().quiet(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.SHRINK);
        assertThat(d.targetBytes()).isEqualTo(128 * MIB);
        assertThat(d.next()).isEqualTo(new State(0, 0, 5));
    }

    @Test
    void aBusyTickRestartsTheQuietPeriod() {
        State s = run(9, signals().quiet(), State.INITIAL).next();
        s = policy.decide(signals().requestRate(51).build(), s).next();
        assertThat(s.quietTicks()).isZero();
        assertThat(run(9, signals().quiet(), s).kind()).isEqualTo(Kind.HOLD);
    }

    @Test
    void pressureIsNeverQuiet() {
        // Few lookups, but nearly all of them miss: not a time to give memory back.
        Decision d = run(30, signals().requestRate(40).missRate(150), State.INITIAL);
        assertThat(d.kind()).isNotEqualTo(Kind.SHRINK);
    }

    @Test
    void shrinkNeverGoesBelowTheMinimum() {
        Decision d = run(10, signals().quiet().budget(192 * MIB), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.SHRINK);
        assertThat(d.targetBytes()).isEqualTo(128 * MIB);
        Decision atMin = run(30, signals().quiet().budget(128 * MIB), State.INITIAL);
        assertThat(atMin.kind()).isEqualTo(Kind.HOLD);
        assertThat(atMin.reason()).isEqualTo("quiet, at the minimum");
    }

    // ---- bounds and the machine -------------------------------------------------------------------

    @Test
    void aBudgetBelowTheMinimumGrowsToItAtOnce() {
        Decision d = policy.decide(signals().budget(64 * MIB).build(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.targetBytes()).isEqualTo(128 * MIB);
    }

    @Test
    void aBudgetBelowTheMinimumStillRespectsTheReserve() {
        Decision d = policy.decide(signals().budget(64 * MIB).available(550 * MIB).build(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.targetBytes()).isEqualTo(64 * MIB + 38 * MIB);
        Decision none = policy.decide(signals().budget(64 * MIB).available(100 * MIB).build(), State.INITIAL);
        assertThat(none.kind()).isEqualTo(Kind.HOLD);
    }

    @Test
    void aBudgetAboveTheMaximumShrinksToIt() {
        Decision d = policy.decide(signals().budget(2 * GIB).build(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.SHRINK);
        assertThat(d.targetBytes()).isEqualTo(GIB);
    }

    @Test
    void aMachineShortOfMemoryGetsAStepBackWithoutWaiting() {
        Decision d = policy.decide(signals().budget(512 * MIB).available(400 * MIB).build(), State.INITIAL);
        assertThat(d.kind()).isEqualTo(Kind.SHRINK);
        assertThat(d.targetBytes()).isEqualTo(384 * MIB);
        assertThat(d.reason()).contains("machine short of memory");
        Decision atMin = policy.decide(signals().budget(128 * MIB).available(400 * MIB).build(), State.INITIAL);
        assertThat(atMin.kind()).isEqualTo(Kind.HOLD);
    }

    @Test
    void targetsAreWholeMiB() {
        long odd = 200 * MIB + 12_345;
        Decision grow = run(3, signals().pressure().budget(odd), State.INITIAL);
        assertThat(grow.targetBytes() % MIB).isZero();
        assertThat(grow.targetBytes()).isEqualTo(456 * MIB);
        Decision shrink = run(10, signals().quiet().budget(500 * MIB + 7), State.INITIAL);
        assertThat(shrink.targetBytes()).isEqualTo(373 * MIB);
    }

    // ---- while resizing -------------------------------------------------------------------------

    @Test
    void aRunningResizeHoldsAndFreezesTheCounters() {
        State s = new State(2, 0, 1);
        Decision d = policy.decide(signals().pressure().resizing(true).build(), s);
        assertThat(d.kind()).isEqualTo(Kind.HOLD);
        assertThat(d.reason()).isEqualTo("resize in progress");
        assertThat(d.next()).isEqualTo(new State(2, 0, 0));
        assertThat(policy.decide(signals().budget(GIB * 2).resizing(true).build(), s).kind()).isEqualTo(Kind.HOLD);
    }

    // ---- configuration ----------------------------------------------------------------------------

    @Test
    void durationsBecomeWholeTicksRoundedUp() {
        GovernorConfig c = config().interval(Duration.ofMillis(400)).shrinkAfter(Duration.ofSeconds(1))
                .cooldown(Duration.ofMillis(1)).build();
        assertThat(c.shrinkAfterTicks()).isEqualTo(3);
        assertThat(c.cooldownTicks()).isEqualTo(1);
        assertThat(config().cooldown(Duration.ZERO).build().cooldownTicks()).isZero();
    }

    @Test
    void badSettingsFailNamingTheSetting() {
        assertThatThrownBy(() -> config().minBudgetBytes(2 * GIB).build()).hasMessageContaining("maxBudgetBytes");
        assertThatThrownBy(() -> config().minBudgetBytes(MIB + 1).build()).hasMessageContaining("whole MiB");
        assertThatThrownBy(() -> config().growStepBytes(0).build()).hasMessageContaining("growStepBytes");
        assertThatThrownBy(() -> config().growMissRate(0).build()).hasMessageContaining("growMissRate");
        assertThatThrownBy(() -> config().growAfterTicks(0).build()).hasMessageContaining("growAfterTicks");
        assertThatThrownBy(() -> config().interval(Duration.ZERO).build()).hasMessageContaining("interval");
        assertThatThrownBy(() -> config().cooldown(Duration.ofSeconds(-1)).build()).hasMessageContaining("cooldown");
        assertThatThrownBy(() -> config().backoffInitial(Duration.ofMinutes(2)).build())
                .hasMessageContaining("backoffMax");
        assertThatThrownBy(() -> config().reserveBytes(-1).build()).hasMessageContaining("reserveBytes");
    }
}
