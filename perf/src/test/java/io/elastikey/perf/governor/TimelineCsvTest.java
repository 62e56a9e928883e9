package io.elastikey.perf.governor;

import io.elastikey.perf.chart.TimelineChart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimelineCsvTest {
    @TempDir
    Path dir;

    @Test
    void wholeNumbersHaveNoDecimalsOthersUpToThreeAndNothingMeasuredIsAnEmptyCell() throws IOException {
        StringWriter text = new StringWriter();
        try (TimelineCsv csv = new TimelineCsv(text, List.of("t_s", "rps", "ratio", "p99_ms"))) {
            csv.row(1, 10000, 0.95, 0.1234);
            csv.row(2, 0, Double.NaN, 12.5);
        }

        assertThat(text.toString()).isEqualTo("t_s,rps,ratio,p99_ms\n1,10000,0.95,0.123\n2,0,,12.5\n");
    }

    @Test
    void aRowMustHaveOneValuePerColumn() throws IOException {
        TimelineCsv csv = new TimelineCsv(new StringWriter(), List.of("t_s", "a"));

        assertThatThrownBy(() -> csv.row(1, 2, 3)).hasMessageContaining("3 values for 2 columns");
        assertThatThrownBy(() -> csv.row(1, Double.POSITIVE_INFINITY)).hasMessageContaining("infinite");
        assertThatThrownBy(() -> new TimelineCsv(new StringWriter(), List.of("t_s", "a,b")))
                .hasMessageContaining("bad column name");
    }

    @Test
    void theGovernorTimelinesColumnsRenderAsOnePanelEach() throws IOException {
        Path file = dir.resolve("g.csv");
        try (TimelineCsv csv = new TimelineCsv(Files.newBufferedWriter(file), GovernorTimeline.HEADER)) {
            csv.row(1, 1000, 998, 32, 32, 0.91, 0.05);
            csv.row(2, 10000, 9990, 96, 96, Double.NaN, Double.NaN);
        }

        TimelineChart.render(file, "t", dir.resolve("g.png"));

        assertThat(dir.resolve("g.png")).isNotEmptyFile();
        assertThat(Files.readAllLines(file)).hasSize(3).first().isEqualTo(
                "t_s,offered_rps,achieved_rps,budget_mib,grant_mib,hit_ratio,lookup_p99_ms");
    }
}
