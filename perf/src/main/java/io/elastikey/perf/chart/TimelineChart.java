// TimelineChart -- renders a time series CSV as a PNG of stacked panels, one per column, sharing the time axis.
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Benchmark timelines (load, memory budget, hit ratio, p99 during a load step) are read by people comparing runs,
 * so the picture is made by the same JVM that measured, with no plotting stack to install: java.awt in headless
 * mode draws it. Each column of the CSV gets its own panel with its own scale, because the series have units that
 * do not share an axis (requests/s, MiB, a ratio, milliseconds).
 *
 * <p>The CSV's first column is the time in seconds; every other column is one series, named by its header.
 * Empty cells are gaps in the line. A panel's scale starts at 0 unless the caller gives the column another
 * {@link Scale}: {@link Scale#FIT} for a ratio that moves between 0.9 and 1, {@link Scale#LOG} for a latency whose
 * tail spans decades. Each title line ({@code \n} separates them) takes {@value #TITLE_LINE} more pixels.
 */
public final class TimelineChart {
    static final int WIDTH = 1200;
    static final int PANEL_HEIGHT = 170;
    static final int LEFT = 90;
    static final int RIGHT = 30;
    static final int TOP = 40;
    static final int BOTTOM = 45;
    static final int TITLE_LINE = 20;
    static final Color BACKGROUND = Color.WHITE;
    private static final Color[] LINES = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd), new Color(0xff7f0e),
    };

    /** How a panel maps values to heights. */
    public enum Scale {
        /** Linear from 0 (or the minimum, if negative) to the maximum: the default. */
        FROM_ZERO,
        /** Linear from the minimum to the maximum. */
        FIT,
        /** Logarithmic between the powers of ten around the positive values; values <= 0 are gaps. */
        LOG
    }

    private TimelineChart() {
    }

    /**
     * For scripts: {@code TimelineChart CSV TITLE PNG [COLUMN=log|fit ...]} renders one CSV (perf/bin/past-ram
     * draws its runs with it).
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: TimelineChart CSV TITLE PNG [COLUMN=log|fit ...]");
            System.exit(2);
        }
        Map<String, Scale> scales = new java.util.HashMap<>();
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            scales.put(kv[0], kv[1].equalsIgnoreCase("log") ? Scale.LOG : Scale.FIT);
        }
        render(Path.of(args[0]), args[1].replace("\\n", "\n"), Path.of(args[2]), scales);
    }

    /** Reads {@code csv} and writes the chart titled {@code title} to {@code png}, every panel from zero. */
    public static void render(Path csv, String title, Path png) throws IOException {
        render(csv, title, png, Map.of());
    }

    /** As {@link #render(Path, String, Path)}, with a scale per column name; columns not named start at zero. */
    public static void render(Path csv, String title, Path png, Map<String, Scale> scales) throws IOException {
        TimeSeries series = TimeSeries.read(csv);
        BufferedImage image = draw(series, title, scales);
        Path tmp = png.resolveSibling(png.getFileName() + ".tmp");
        if (!ImageIO.write(image, "png", tmp.toFile())) {
            throw new IOException("no PNG writer in this JVM");
        }
        Files.move(tmp, png, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static BufferedImage draw(TimeSeries series, String title, Map<String, Scale> scales) {
        int panels = series.names().size();
        String[] titleLines = title.split("\n");
        int top = TOP + (titleLines.length - 1) * TITLE_LINE;
        int height = top + panels * PANEL_HEIGHT + BOTTOM;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(BACKGROUND);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            for (int i = 0; i < titleLines.length; i++) {
                g.drawString(titleLines[i], LEFT, 25 + i * TITLE_LINE);
            }
            for (int p = 0; p < panels; p++) {
                Scale scale = scales.getOrDefault(series.names().get(p), Scale.FROM_ZERO);
                drawPanel(g, series, p, top + p * PANEL_HEIGHT, p == panels - 1, scale);
            }
        } finally {
            g.dispose();
        }
        return image;
    }

    /** One series in the band starting at {@code y}: frame, min/max labels, the line, the name. */
    private static void drawPanel(Graphics2D g, TimeSeries series, int index, int y, boolean last, Scale scale) {
        int plotTop = y + 18;
        int plotHeight = PANEL_HEIGHT - 30;
        int plotWidth = WIDTH - LEFT - RIGHT;
        double[] time = series.time();
        double[] values = series.column(index).clone();
        double t0 = time.length == 0 ? 0 : time[0];
        double t1 = time.length == 0 ? 1 : Math.max(time[time.length - 1], t0 + 1e-9);
        if (scale == Scale.LOG) {
            for (int i = 0; i < values.length; i++) {
                values[i] = values[i] > 0 ? Math.log10(values[i]) : Double.NaN;
            }
        }
        double[] range = range(values, scale);
        double lo = range[0];
        double hi = range[1];

        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setColor(new Color(0xeeeeee));
        int gridLines = scale == Scale.LOG ? (int) Math.round(hi - lo) : 4;
        for (int i = 1; i < gridLines; i++) {
            int gy = plotTop + plotHeight * i / gridLines;
            g.drawLine(LEFT, gy, LEFT + plotWidth, gy);
        }
        g.setColor(Color.GRAY);
        g.drawRect(LEFT, plotTop, plotWidth, plotHeight);
        g.setColor(Color.BLACK);
        String suffix = scale == Scale.LOG ? " (log scale)" : scale == Scale.FIT ? " (scale not from 0)" : "";
        g.drawString(series.names().get(index) + suffix, LEFT + 4, y + 14);
        if (scale == Scale.LOG) {
            for (int i = 0; i <= gridLines; i++) {
                g.drawString(label(Math.pow(10, hi - i)), 8, plotTop + plotHeight * i / gridLines + (i == 0 ? 10 : 4));
            }
        } else {
            g.drawString(label(hi), 8, plotTop + 10);
            g.drawString(label(lo), 8, plotTop + plotHeight);
        }
        if (last) {
            for (int i = 0; i <= 10; i++) {
                double t = t0 + (t1 - t0) * i / 10;
                int x = LEFT + plotWidth * i / 10;
                g.drawString(label(t) + " s", x - 12, plotTop + plotHeight + 16);
            }
        }

        g.setColor(LINES[index % LINES.length]);
        g.setStroke(new BasicStroke(2f));
        int prevX = -1;
        int prevY = -1;
        for (int i = 0; i < values.length; i++) {
            if (Double.isNaN(values[i])) {
                prevX = -1;
                continue;
            }
            int x = LEFT + (int) Math.round((time[i] - t0) / (t1 - t0) * plotWidth);
            int yv = plotTop + plotHeight - (int) Math.round((values[i] - lo) / (hi - lo) * plotHeight);
            if (prevX >= 0) {
                g.drawLine(prevX, prevY, x, yv);
            } else {
                g.fillRect(x - 1, yv - 1, 3, 3);
            }
            prevX = x;
            prevY = yv;
        }
    }

    /**
     * The panel's {lo, hi}: from zero with 8% headroom, the data's own span with 8% either side, or (for values
     * already in log10) the whole decades around them.
     */
    static double[] range(double[] values, Scale scale) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            if (!Double.isNaN(v)) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        if (lo > hi) { // no values
            lo = 0;
            hi = 0;
        }
        switch (scale) {
            case LOG -> {
                lo = Math.floor(lo);
                hi = Math.max(Math.ceil(hi), lo + 1);
            }
            case FIT -> {
                double pad = hi == lo ? Math.max(Math.abs(hi) * 0.08, 1) : (hi - lo) * 0.08;
                lo -= pad;
                hi += pad;
            }
            default -> {
                lo = Math.min(lo, 0);
                hi = Math.max(hi, 0);
                if (hi == lo) {
                    hi = lo + 1;
                }
                hi += (hi - lo) * 0.08;
            }
        }
        return new double[] {lo, hi};
    }

    private static String label(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        }
        if (a >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        if (a >= 100 || v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** The CSV in columns: the time column and each named series, NaN where a cell was empty. */
    record TimeSeries(double[] time, List<String> names, List<double[]> columns) {
        double[] column(int i) {
            return columns.get(i);
        }

        static TimeSeries read(Path csv) throws IOException {
            List<String> lines = Files.readAllLines(csv);
            if (lines.isEmpty()) {
                throw new IOException(csv + ": empty, expected a header line");
            }
            String[] header = lines.get(0).split(",", -1);
            if (header.length < 2) {
                throw new IOException(csv + ": the header needs a time column and at least one series");
            }
            List<String> names = List.of(header).subList(1, header.length);
            List<double[]> rows = new ArrayList<>();
            for (int n = 1; n < lines.size(); n++) {
                String line = lines.get(n);
                if (line.isBlank()) {
                    continue;
                }
                String[] cells = line.split(",", -1);
                if (cells.length != header.length) {
                    throw new IOException(csv + " line " + (n + 1) + ": " + cells.length + " cells, the header has "
                            + header.length);
                }
                double[] row = new double[cells.length];
                for (int c = 0; c < cells.length; c++) {
                    row[c] = parse(cells[c], csv, n + 1, c == 0);
                }
                rows.add(row);
            }
            double[] time = new double[rows.size()];
            List<double[]> columns = new ArrayList<>();
            for (int c = 1; c < header.length; c++) {
                columns.add(new double[rows.size()]);
            }
            for (int r = 0; r < rows.size(); r++) {
                time[r] = rows.get(r)[0];
                for (int c = 1; c < header.length; c++) {
                    columns.get(c - 1)[r] = rows.get(r)[c];
                }
            }
            return new TimeSeries(time, names, columns);
        }

        private static double parse(String cell, Path csv, int line, boolean required) throws IOException {
            String s = cell.strip();
            if (s.isEmpty() && !required) {
                return Double.NaN;
            }
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                throw new IOException(csv + " line " + line + ": '" + cell + "' is not a number");
            }
        }
    }
}
