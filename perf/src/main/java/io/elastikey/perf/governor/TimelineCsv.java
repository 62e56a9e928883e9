// TimelineCsv -- one CSV row per second for TimelineChart: a header, numbers in ROOT locale, empty cells for gaps.
package io.elastikey.perf.governor;

import java.io.Closeable;
import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/**
 * Writes the rows {@link io.elastikey.perf.chart.TimelineChart} reads: the header names the columns (the first is
 * the time in seconds), each row has one value per column, whole numbers are written without decimals, others
 * with up to three, and {@code NaN} (nothing measured that second) is an empty cell. Each row is flushed, so a run
 * stopped early leaves every finished second on disk. Not thread-safe.
 */
public final class TimelineCsv implements Closeable {

    private final Writer out;
    private final int columns;

    public TimelineCsv(Writer out, List<String> header) throws IOException {
        if (header.size() < 2) {
            throw new IllegalArgumentException("a time column and at least one series");
        }
        for (String name : header) {
            if (name.isEmpty() || name.contains(",") || name.contains("\n")) {
                throw new IllegalArgumentException("bad column name '" + name + "'");
            }
        }
        this.out = out;
        this.columns = header.size();
        out.write(String.join(",", header));
        out.write('\n');
        out.flush();
    }

    /** One row: exactly one value per column. */
    public void row(double... values) throws IOException {
        if (values.length != columns) {
            throw new IllegalArgumentException(values.length + " values for " + columns + " columns");
        }
        out.write(format(values));
        out.write('\n');
        out.flush();
    }

    public static String format(double... values) {
        StringBuilder b = new StringBuilder();
        for (int c = 0; c < values.length; c++) {
            if (c > 0) {
                b.append(',');
            }
            b.append(cell(values[c]));
        }
        return b.toString();
    }

    static String cell(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        if (Double.isInfinite(v)) {
            throw new IllegalArgumentException("an infinite value has no cell");
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        String t = String.format(Locale.ROOT, "%.3f", v);
        t = t.replaceAll("0+$", "");
        return t.endsWith(".") ? t.substring(0, t.length() - 1) : t;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
