package io.elastikey.perf.chart;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimelineChartTest {
    @TempDir
    Path dir;

    @Test
    void drawsOnePanelPerSeriesWithTheLineInsideIt() throws IOException {
        Path csv = dir.resolve("t.csv");
        Files.writeString(csv, "t_s,load_rps,budget_mb\n0,100,64\n1,,64\n2,300,128\n3,300,128\n");
        Path png = dir.resolve("t.png");

        TimelineChart.render(csv, "step", png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(TimelineChart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(
                TimelineChart.TOP + 2 * TimelineChart.PANEL_HEIGHT + TimelineChart.BOTTOM);
        // budget_mb (the second panel, drawn red) is flat at 128 from t=2 to t=3; the scale tops out 8% above the
        // maximum. Down one pixel column in that stretch, red appears only at the height of 128.
        int plotHeight = TimelineChart.PANEL_HEIGHT - 30;
        int plotTop = TimelineChart.TOP + TimelineChart.PANEL_HEIGHT + 18;
        int expectedY = plotTop + plotHeight - (int) Math.round(128 / (128 * 1.08) * plotHeight);
        int x = TimelineChart.WIDTH - TimelineChart.RIGHT - 20;
        List<Integer> redRows = new ArrayList<>();
        for (int y = plotTop + 1; y < plotTop + plotHeight; y++) {
            int rgb = image.getRGB(x, y);
            if (((rgb >> 16) & 0xff) > 0xb0 && ((rgb >> 8) & 0xff) < 0x80 && (rgb & 0xff) < 0x80) {
                redRows.add(y);
            }
        }
        assertThat(redRows).isNotEmpty().allSatisfy(y -> assertThat(y).isBetween(expectedY - 2, expectedY + 2));
    }

    @Test
    void aFittedScaleSpansTheDataAndALogScaleTheDecadesAroundIt() {
        assertThat(TimelineChart.range(new double[] {0.9, Double.NaN, 1.0}, TimelineChart.Scale.FIT))
                .containsExactly(new double[] {0.892, 1.008}, org.assertj.core.data.Offset.offset(1e-9));
        // log10 of 0.12 ms .. 150 ms: the panel runs from 0.1 to 1000 ms, one grid line per decade
        double[] logs = {Math.log10(0.12), Math.log10(150)};
        assertThat(TimelineChart.range(logs, TimelineChart.Scale.LOG)).containsExactly(-1.0, 3.0);
        assertThat(TimelineChart.range(new double[] {2, 5}, TimelineChart.Scale.FROM_ZERO))
                .containsExactly(new double[] {0, 5.4}, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(TimelineChart.range(new double[] {Double.NaN}, TimelineChart.Scale.FROM_ZERO))
                .containsExactly(0.0, 1.08);
    }

    @Test
    void eachTitleLineAddsItsHeightAndALogPanelDropsValuesThatAreNotPositive() throws IOException {
        Path csv = dir.resolve("t.csv");
        Files.writeString(csv, "t_s,p99_ms\n0,0.1\n1,0\n2,100\n");
        Path png = dir.resolve("t.png");

        TimelineChart.render(csv, "first line\nsecond line", png, Map.of("p99_ms", TimelineChart.Scale.LOG));

        assertThat(ImageIO.read(png.toFile()).getHeight()).isEqualTo(TimelineChart.TOP + TimelineChart.TITLE_LINE
                + TimelineChart.PANEL_HEIGHT + TimelineChart.BOTTOM);
    }

    @Test
    void aRowWithTheWrongNumberOfCellsIsRejectedWithItsLineNumber() throws IOException {
        Path csv = dir.resolve("bad.csv");
        Files.writeString(csv, "t_s,a\n0,1\n1,2,3\n");

        assertThatThrownBy(() -> TimelineChart.render(csv, "x", dir.resolve("x.png")))
                .hasMessageContaining("line 3").hasMessageContaining("3 cells");
        assertThat(dir.resolve("x.png")).doesNotExist();
    }

    @Test
    void aCellThatIsNotANumberIsNamed() throws IOException {
        Path csv = dir.resolve("bad.csv");
        Files.writeString(csv, "t_s,a\n0,fast\n");

        assertThatThrownBy(() -> TimelineChart.render(csv, "x", dir.resolve("x.png")))
                .hasMessageContaining("'fast' is not a number");
    }
}
