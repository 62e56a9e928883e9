// Timeline -- one row per second of a soak or chaos run: the load's answers, failures, latency, and each process's RSS and fds.
package io.elastikey.perf.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.elastikey.perf.chart.TimelineChart;

/**
 * What a run saw, second by second, in memory and in {@code timeline.csv} (written as the run goes, so a run cut
 * short still leaves its seconds). The processes are named by role ({@code keyserver}, {@code edge}, ...), the same
 * every row; a role whose process is down (killed by chaos) has -1 for its RSS and fds, a gap in the plot. Rows are
 * added by one thread (the sampler) and read by others only after {@link #rows()} copies them.
 */
final class Timeline {
    /** One second. {@code rssKib} and {@code fds} by role, -1 where the process is down. */
    record Row(long second, long offered, long answered, Map<String, Long> errors, double p50Ms, double p99Ms,
               double maxMs, int open, Map<String, Long> rssKib, Map<String, Integer> fds) {
        long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final List<String> roles;
    private final Path csv;
    private final List<Row> rows = new ArrayList<>();

    Timeline(List<String> roles, Path csv) throws IOException {
        this.roles = List.copyOf(roles);
        this.csv = csv;
        StringBuilder header = new StringBuilder("second,offered,answered,errors,p50_ms,p99_ms,max_ms,open");
        roles.forEach(r -> header.append(',').append(r).append("_rss_mib"));
        roles.forEach(r -> header.append(',').append(r).append("_fds"));
        Files.writeString(csv, header.append('\n').toString());
    }

    synchronized void add(Row row) throws IOException {
        rows.add(row);
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%d,%d,%d,%d,%s,%s,%s,%d", row.second(),
                row.offered(), row.answered(), row.errorCount(), cell(row.p50Ms()), cell(row.p99Ms()),
                cell(row.maxMs()), row.open()));
        for (String role : roles) {
            long kib = row.rssKib().getOrDefault(role, -1L);
            line.append(',').append(kib < 0 ? "" : String.format(Locale.ROOT, "%.1f", kib / 1024.0));
        }
        for (String role : roles) {
            int fds = row.fds().getOrDefault(role, -1);
            line.append(',').append(fds < 0 ? "" : Integer.toString(fds));
        }
        Files.writeString(csv, line.append('\n').toString(), java.nio.file.StandardOpenOption.APPEND);
    }

    synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    List<String> roles() {
        return roles;
    }

    /** Failures by kind over rows {@code [from, to)} (seconds). */
    Map<String, Long> errorsBetween(long from, long to) {
        Map<String, Long> kinds = new TreeMap<>();
        for (Row row : rows()) {
            if (row.second() >= from && row.second() < to) {
                row.errors().forEach((kind, n) -> kinds.merge(kind, n, Long::sum));
            }
        }
        return kinds;
    }

    /**
     * The PNG: answers per second, p99 (log scale), then the RSS of each role, sharing the time axis. Written through
     * a CSV of just those columns, which {@link TimelineChart} draws one panel each.
     */
    void plot(Path png, String title) throws IOException {
        Path chartCsv = png.resolveSibling(png.getFileName() + ".csv");
        StringBuilder text = new StringBuilder("second,answers/s,failed/s,p99 handshake ms");
        roles.forEach(r -> text.append(',').append(r).append(" RSS MiB"));
        text.append('\n');
        for (Row row : rows()) {
            text.append(row.second()).append(',').append(row.answered()).append(',').append(row.errorCount())
                    .append(',').append(cell(row.p99Ms()));
            for (String role : roles) {
                long kib = row.rssKib().getOrDefault(role, -1L);
                text.append(',').append(kib < 0 ? "" : String.format(Locale.ROOT, "%.1f", kib / 1024.0));
            }
            text.append('\n');
        }
        Files.writeString(chartCsv, text.toString());
        Map<String, TimelineChart.Scale> scales = new LinkedHashMap<>();
        scales.put("p99 handshake ms", TimelineChart.Scale.LOG);
        TimelineChart.render(chartCsv, title, png, scales);
        Files.delete(chartCsv);
    }

    private static String cell(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
    }
}
