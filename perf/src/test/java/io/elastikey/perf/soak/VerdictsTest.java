// VerdictsTest -- how the soak's and the chaos run's timelines are judged: growth, failures, recovery.
package io.elastikey.perf.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerdictsTest {
    @TempDir
    Path directory;

    @Test
    void rssThatGrowsFivePercentAfterWarmUpFailsAndFdsThatStayWithinTheirEarlyRangePass() throws Exception {
        Timeline timeline = new Timeline(List.of("edge", "keyserver"), directory.resolve("t.csv"));
        for (int s = 0; s < 100; s++) {
            long edgeRss = s < 20 ? 50_000 + s * 1000 : 100_000 + (s >= 80 ? 6_000 : 0); // +6% at the end
            int fds = 40 + s % 5; // moves with connections in flight, does not climb
            timeline.add(row(s, 100, Map.of(), Map.of("edge", edgeRss, "keyserver", 200_000L),
                    Map.of("edge", fds, "keyserver", 30)));
        }

        SoakVerdicts v = SoakVerdicts.judge(timeline, 20);

        assertThat(v.window()).isEqualTo(20);
        assertThat(v.rss().get("edge").met()).as("growth during warm-up does not count, 6%% after it does")
                .isFalse();
        assertThat(v.rss().get("edge").ratio()).isBetween(0.059, 0.061);
        assertThat(v.rss().get("keyserver").met()).isTrue();
        assertThat(v.fdsMet()).isTrue();
        assertThat(v.failuresMet()).isTrue();
        assertThat(v.answered()).isEqualTo(10_000);
    }

    @Test
    void aFailureAnywhereFailsTheSoakAndAClimbingFdCountIsGrowth() throws Exception {
        Timeline timeline = new Timeline(List.of("edge"), directory.resolve("t.csv"));
        for (int s = 0; s < 40; s++) {
            timeline.add(row(s, 100, s == 3 ? Map.of("HANDSHAKE_TIMEOUT", 1L) : Map.of(), Map.of("edge", 1000L),
                    Map.of("edge", 40 + s)));
        }

        SoakVerdicts v = SoakVerdicts.judge(timeline, 4);

        assertThat(v.failed()).isEqualTo(1);
        assertThat(v.failuresMet()).isFalse();
        assertThat(v.fdsMet()).isFalse();
    }

    @Test
    void anFdCountAtItsEarlyHighHalfTheTimeIsNoGrowthButTwoAboveIt() throws Exception {
        Timeline steady = new Timeline(List.of("origin"), directory.resolve("steady.csv"));
        Timeline leaking = new Timeline(List.of("origin"), directory.resolve("leaking.csv"));
        for (int s = 0; s < 44; s++) {
            boolean late = s >= 34; // the last window (10 s of the 40 after warm-up)
            int early = s < 14 ? 99 + s % 3 : 100; // 99-101 in the first window after warm-up
            steady.add(row(s, 100, Map.of(), Map.of("origin", 1000L), Map.of("origin", late ? 101 + s % 2 : early)));
            leaking.add(row(s, 100, Map.of(), Map.of("origin", 1000L), Map.of("origin", late ? 103 : early)));
        }

        assertThat(SoakVerdicts.judge(steady, 4).fds().get("origin").end()).isEqualTo(101.5);
        assertThat(SoakVerdicts.judge(steady, 4).fdsMet()).isTrue();
        assertThat(SoakVerdicts.judge(leaking, 4).fdsMet()).isFalse();
    }

    @Test
    void aFaultsShareOfFailuresAndItsRecoveryComeFromItsWindow() throws Exception {
        Timeline timeline = new Timeline(List.of("edge"), directory.resolve("t.csv"));
        for (int s = 0; s < 30; s++) {
            boolean hit = s >= 10 && s < 13;
            timeline.add(row(s, hit ? 50 : 100, hit ? Map.of("TLS_INTERNAL_ERROR", 2L) : Map.of(),
                    Map.of("edge", 1L), Map.of("edge", 1)));
        }
        ChaosEvent event = new ChaosEvent("kill-a", "SIGKILL A", 10, 15, 25, true, Map.of());

        ChaosEvent.Outcome o = event.judge(timeline, 100);

        assertThat(o.failed()).isEqualTo(6);
        assertThat(o.answered()).isEqualTo(3 * 50 + 12 * 100);
        assertThat(o.failedShare()).isEqualTo(6.0 / (6 + 1350));
        assertThat(o.recoverySeconds()).as("the first of three full seconds is second 13").isEqualTo(3);
        assertThat(event.describe(o).get("target_met")).isEqualTo(false);
    }

    private static Timeline.Row row(long second, long answered, Map<String, Long> errors, Map<String, Long> rss,
                                    Map<String, Integer> fds) {
        return new Timeline.Row(second, 100, answered, errors, 1, 2, 3, 0, rss, fds);
    }
}
