// PercentileChartTest -- percentile points as HdrHistogram's plotter places them, and the PNG drawn from them.
package io.elastikey.perf.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PercentileChartTest {
    @TempDir
    Path dir;

    /** 1 ms for 9,990 requests, then 10 of 50 ms: p99.9 and beyond is the slow ones. */
    private static Histogram tail() {
        Histogram h = new Histogram(60_000_000_000L, 3);
        h.recordValueWithCount(1_000_000, 9_990);
        h.recordValueWithCount(50_000_000, 10);
        return h;
    }

    @Test
    void pointsRunFromTheMedianToTheMaximumAtOneOverOneMinusThePercentile() {
        List<double[]> points = PercentileChart.points(tail());

        for (int i = 1; i < points.size(); i++) {
            assertThat(points.get(i)[0]).isGreaterThanOrEqualTo(points.get(i - 1)[0]);
        }
        double[] last = points.get(points.size() - 1);
        assertThat(last[0]).isEqualTo(10_000.0);
        assertThat(last[1]).isCloseTo(50.0, within(0.05));
        // at 99% (x = 100) the latency is still the fast 1 ms
        double atNinetyNine = points.stream().filter(p -> p[0] <= 100).mapToDouble(p -> p[1]).max().orElseThrow();
        assertThat(atNinetyNine).isCloseTo(1.0, within(0.01));
        assertThat(PercentileChart.points(new Histogram(3))).isEmpty();
    }

    @Test
    void theAxisIsLabelledInPercentilesAndScaledToRoundNumbers() {
        assertThat(List.of(0, 1, 2, 3, 5).stream().map(PercentileChart::percentileLabel))
                .containsExactly("0%", "90%", "99%", "99.9%", "99.999%");
        assertThat(PercentileChart.niceCeiling(0.37)).isCloseTo(0.5, within(1e-12));
        assertThat(PercentileChart.niceCeiling(126)).isCloseTo(200, within(1e-9));
        assertThat(PercentileChart.niceCeiling(2.0)).isCloseTo(2.0, within(1e-12));
    }

    @Test
    void drawsEachSeriesInItsColourAcrossThePlot() throws Exception {
        Path png = dir.resolve("p.png");

        PercentileChart.render("tail", List.of(new PercentileChart.Series("run", tail())),
                List.of(new PercentileChart.Target(99, 2, "p99 < 2 ms")), png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(PercentileChart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(PercentileChart.HEIGHT);
        // The first series is blue (0x1f77b4). At the right edge it has climbed to the 50 ms maximum, half way up
        // the axis (50 ms rounds up to a 100 ms top); down that pixel column blue appears only there.
        int x = PercentileChart.WIDTH - PercentileChart.RIGHT - 3;
        int plotHeight = PercentileChart.HEIGHT - PercentileChart.TOP - PercentileChart.BOTTOM;
        int expectedY = PercentileChart.TOP + plotHeight / 2;
        List<Integer> blueRows = new java.util.ArrayList<>();
        for (int y = PercentileChart.TOP + 1; y < PercentileChart.TOP + plotHeight; y++) {
            int rgb = image.getRGB(x, y);
            if ((rgb & 0xff) > 0x90 && ((rgb >> 16) & 0xff) < 0x60) {
                blueRows.add(y);
            }
        }
        assertThat(blueRows).isNotEmpty().allSatisfy(y -> assertThat(y).isBetween(expectedY - 2, expectedY + 2));
    }
}
