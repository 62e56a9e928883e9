// ResizeTimelinePhasesTest -- each request is counted in the phase it was due in, and the phases merge per worker.
package io.elastikey.perf.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ResizeTimelinePhasesTest {

    @Test
    void aRequestBelongsToThePhaseItWasDueInWhateverItsLatency() {
        ResizeTimeline.Phases phases = new ResizeTimeline.Phases(2);
        phases.record(0, 50, 1_000);
        assertThat(phases.resizesStarted()).isZero();
        phases.started(100); // grow
        phases.record(1, 99, 5_000_000); // due before the grow, however late it finished
        phases.record(0, 100, 2_000);
        phases.ended(200);
        assertThat(phases.resizesStarted()).isEqualTo(1);
        phases.record(1, 250, 3_000);
        phases.started(300); // shrink
        assertThat(phases.resizesStarted()).isEqualTo(2);
        phases.record(0, 301, 4_000);
        phases.ended(400);
        phases.record(1, 401, 5_000);

        assertThat(phases.merged(0).getTotalCount()).isEqualTo(2);
        assertThat(phases.merged(0).getMaxValue()).isGreaterThanOrEqualTo(4_990_000);
        for (int p = 1; p < ResizeTimeline.PHASES.length; p++) {
            assertThat(phases.merged(p).getTotalCount()).as(ResizeTimeline.PHASES[p]).isEqualTo(1);
        }
    }

    @Test
    void defaultsAreTheIssuesScenario() {
        ResizeTimeline t = new ResizeTimeline();
        new CommandLine(t).parseArgs();
        assertThat(t.lowPercent).isEqualTo(10);
        assertThat(t.highPercent).isEqualTo(100);
        assertThat(t.loadPercent).isEqualTo(70);
        assertThat(t.resizeIdlePriority).isTrue();
        assertThat(t.title(1000)).contains("10% -> 100% -> 10%").contains("70% of the closed-loop peak");
    }
}
