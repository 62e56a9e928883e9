// PercentileChart -- renders latency histograms as HdrHistogram percentile plots: latency over 1/(1-percentile), log x.
package io.elastikey.perf.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The plot HdrHistogram's own plotter draws from an {@code .hgrm} file, made by the JVM that measured (java.awt in
 * headless mode, as {@link TimelineChart}): the x axis is {@code 1 / (1 - percentile)} on a log scale, so 90%, 99%,
 * 99.9% and 99.99% are equally far apart and the tail gets as much room as the median; the y axis is the latency in
 * milliseconds, linear from zero. Each {@link Series} is one line through the histogram's percentile iteration (five
 * steps per halving of the remaining distance, as {@code outputPercentileDistribution}), ending at the maximum, which
 * sits at {@code 1 / (1 - (1 - 1/count))} = count. {@link Target}s are drawn as dashed marks at their percentile.
 */
public final class PercentileChart {
    static final int WIDTH = 1100;
    static final int HEIGHT = 640;
    static final int LEFT = 80;
    static final int RIGHT = 30;
    static final int TOP = 60;
    static final int BOTTOM = 60;
    private static final int TICKS_PER_HALF_DISTANCE = 5;
    private static final Color[] LINES = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd), new Color(0xff7f0e),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
    };

    /** One line: a name for the legend and latencies in nanoseconds. */
    public record Series(String name, Histogram latencyNanos) {
    }

    /** A latency target at a percentile, e.g. p99 under 2 ms: {@code percentile} 99, {@code millis} 2. */
    public record Target(double percentile, double millis, String label) {
    }

    private PercentileChart() {
    }

    /** Draws {@code series} (and the targets that fall inside the axes) to {@code png}, replacing it whole. */
    public static void render(String title, List<Series> series, List<Target> targets, Path png) throws IOException {
        BufferedImage image = draw(title, series, targets);
        Path tmp = png.resolveSibling(png.getFileName() + ".tmp");
        if (!ImageIO.write(image, "png", tmp.toFile())) {
            throw new IOException("no PNG writer in this JVM");
        }
        Files.move(tmp, png, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * The points of one histogram: {x = 1 / (1 - percentile), y = latency in ms}, x rising, the last point the
     * maximum at x = count. Empty for an empty histogram.
     */
    static List<double[]> points(Histogram latencyNanos) {
        List<double[]> points = new ArrayList<>();
        long count = latencyNanos.getTotalCount();
        if (count == 0) {
            return points;
        }
        double lastX = 1;
        for (HistogramIterationValue value : latencyNanos.percentiles(TICKS_PER_HALF_DISTANCE)) {
            double fraction = value.getPercentileLevelIteratedTo() / 100.0;
            if (fraction >= 1.0 - 1.0 / count) {
                break; // beyond what count samples resolve: the maximum is added below
            }
            lastX = Math.max(lastX, 1 / (1 - fraction));
            points.add(new double[] {lastX, value.getValueIteratedTo() / 1e6});
        }
        points.add(new double[] {Math.max(lastX, count), latencyNanos.getMaxValue() / 1e6});
        return points;
    }

    static BufferedImage draw(String title, List<Series> series, List<Target> targets) {
        List<List<double[]>> lines = series.stream().map(s -> points(s.latencyNanos())).toList();
        double maxX = 100;
        double maxY = 0;
        for (List<double[]> line : lines) {
            for (double[] p : line) {
                maxX = Math.max(maxX, p[0]);
                maxY = Math.max(maxY, p[1]);
            }
        }
        int decades = (int) Math.max(2, Math.ceil(Math.log10(maxX) - 1e-9));
        double yTop = niceCeiling(maxY > 0 ? maxY * 1.05 : 1);
        Axes axes = new Axes(decades, yTop);

        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            String[] titleLines = title.split("\n");
            for (int i = 0; i < titleLines.length && i < 2; i++) {
                g.drawString(titleLines[i], LEFT, 22 + i * 20);
            }
            drawAxes(g, axes);
            drawTargets(g, axes, targets);
            for (int i = 0; i < lines.size(); i++) {
                drawLine(g, axes, lines.get(i), LINES[i % LINES.length]);
            }
            drawLegend(g, series, lines);
        } finally {
            g.dispose();
        }
        return image;
    }

    /** The plot area and the mapping of (x, ms) into it. */
    private record Axes(int decades, double yTop) {
        int width() {
            return WIDTH - LEFT - RIGHT;
        }

        int height() {
            return HEIGHT - TOP - BOTTOM;
        }

        int px(double x) {
            return LEFT + (int) Math.round(Math.log10(Math.max(1, x)) / decades * width());
        }

        int py(double millis) {
            return TOP + height() - (int) Math.round(Math.min(millis, yTop) / yTop * height());
        }
    }

    private static void drawAxes(Graphics2D g, Axes axes) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int d = 0; d <= axes.decades(); d++) {
            int x = axes.px(Math.pow(10, d));
            g.setColor(new Color(0xe4e4e4));
            g.drawLine(x, TOP, x, TOP + axes.height());
            g.setColor(Color.BLACK);
            String label = percentileLabel(d);
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, TOP + axes.height() + 18);
        }
        double step = axes.yTop() / 5;
        for (int i = 0; i <= 5; i++) {
            int y = axes.py(step * i);
            g.setColor(new Color(0xe4e4e4));
            g.drawLine(LEFT, y, LEFT + axes.width(), y);
            g.setColor(Color.BLACK);
            String label = number(step * i);
            g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 4);
        }
        g.setColor(Color.GRAY);
        g.drawRect(LEFT, TOP, axes.width(), axes.height());
        g.setColor(Color.BLACK);
        g.drawString("percentile (x = 1 / (1 - percentile), log scale)", LEFT + axes.width() / 2 - 130,
                TOP + axes.height() + 40);
        g.rotate(-Math.PI / 2);
        g.drawString("latency (ms)", -(TOP + axes.height() / 2 + 35), 20);
        g.rotate(Math.PI / 2);
    }

    private static void drawTargets(Graphics2D g, Axes axes, List<Target> targets) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (Target target : targets) {
            if (target.millis() > axes.yTop()) {
                continue; // far above every line: the legend's numbers say it is met
            }
            double x = target.percentile() >= 100 ? Math.pow(10, axes.decades())
                    : 1 / (1 - target.percentile() / 100);
            int px = axes.px(Math.min(x, Math.pow(10, axes.decades())));
            int py = axes.py(target.millis());
            g.setColor(new Color(0xb00000));
            g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                    new float[] {6f, 4f}, 0f));
            g.drawLine(Math.max(LEFT, px - 60), py, Math.min(LEFT + axes.width(), px + 60), py);
            g.setStroke(new BasicStroke(1f));
            g.drawString(target.label(), Math.max(LEFT + 2, px - 58), py - 4);
        }
    }

    private static void drawLine(Graphics2D g, Axes axes, List<double[]> points, Color color) {
        g.setColor(color);
        g.setStroke(new BasicStroke(2f));
        int prevX = -1;
        int prevY = -1;
        for (double[] p : points) {
            int x = axes.px(p[0]);
            int y = axes.py(p[1]);
            if (prevX >= 0) {
                g.drawLine(prevX, prevY, x, y);
            }
            prevX = x;
            prevY = y;
        }
        if (points.size() == 1) {
            g.fillOval(prevX - 3, prevY - 3, 6, 6);
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static void drawLegend(Graphics2D g, List<Series> series, List<List<double[]>> lines) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int y = TOP + 18;
        for (int i = 0; i < series.size(); i++) {
            Histogram h = series.get(i).latencyNanos();
            String text = h.getTotalCount() == 0 ? series.get(i).name() + "  (no samples)"
                    : String.format(Locale.ROOT, "%s  p50 %s  p99 %s  p99.9 %s  max %s ms", series.get(i).name(),
                            number(h.getValueAtPercentile(50) / 1e6), number(h.getValueAtPercentile(99) / 1e6),
                            number(h.getValueAtPercentile(99.9) / 1e6), number(h.getMaxValue() / 1e6));
            g.setColor(new Color(255, 255, 255, 220));
            g.fillRect(LEFT + 10, y - 12, g.getFontMetrics().stringWidth(text) + 36, 16);
            g.setColor(LINES[i % LINES.length]);
            g.setStroke(new BasicStroke(3f));
            g.drawLine(LEFT + 14, y - 4, LEFT + 36, y - 4);
            g.setStroke(new BasicStroke(1f));
            g.setColor(Color.BLACK);
            g.drawString(text, LEFT + 42, y);
            y += 18;
        }
    }

    /** {@code 0%} for decade 0, then {@code 90%}, {@code 99%}, {@code 99.9%}, ... */
    static String percentileLabel(int decade) {
        if (decade == 0) {
            return "0%";
        }
        if (decade <= 2) {
            return decade == 1 ? "90%" : "99%";
        }
        return "99." + "9".repeat(decade - 2) + "%";
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code value}. */
    static double niceCeiling(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * power >= value * (1 - 1e-12)) {
                return m * power;
            }
        }
        return 10 * power;
    }

    private static String number(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (v >= 1 || v == 0) {
            return String.format(Locale.ROOT, "%.2f", v).replaceAll("\\.00$", "");
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
