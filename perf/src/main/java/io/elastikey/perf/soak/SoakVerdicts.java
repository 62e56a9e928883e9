// SoakVerdicts -- the soak's three verdicts from its timeline: no failures, RSS growth under 5 %, no fd growth.
package io.elastikey.perf.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * How the run is judged, from the rows of its open-loop phase.
 *
 * <ul>
 *   <li><b>Failures</b>: every connection of the run counts, warm-up included; the verdict is met at 0.
 *   <li><b>Warm-up</b>: the first {@code warmupSeconds} of the run, while the JVMs compile, their heaps size
 *       themselves and the edge's connection pools fill; memory is not judged there.
 *   <li><b>RSS growth</b>, per process: the median RSS of the last {@code window} seconds over the median of the
 *       {@code window} seconds right after the warm-up, minus one; met below 5 %. Medians, so one GC's moment does
 *       not decide.
 *   <li><b>File descriptors</b>, per process: not growing when the median count of the last window is at most
 *       one above the highest count of the first window after warm-up. Connections in flight make the count move
 *       from second to second, and a count that sits at its early high half the time has a median half a
 *       descriptor above it (the sample origin in a 10-minute soak: 99-102 throughout, 101 early, 101.5 at the end);
 *       a leak grows with the connections served, hundreds of thousands in a soak, and climbs past any slack.
 * </ul>
 */
record SoakVerdicts(long answered, long failed, Map<String, Long> failures, long warmupSeconds, long window,
                    Map<String, Growth> rss, Map<String, Growth> fds) {
    static final double RSS_LIMIT = 0.05;
    /** Descriptors the last window's median may lie above the first window's high (see above). */
    static final double FD_SLACK = 1;

    /** A process's figure after the warm-up and at the end. */
    record Growth(double after, double end, boolean met) {
        double ratio() {
            return after > 0 ? end / after - 1 : Double.NaN;
        }
    }

    static SoakVerdicts judge(Timeline timeline, long warmupSeconds) {
        List<Timeline.Row> rows = timeline.rows();
        long answered = rows.stream().mapToLong(Timeline.Row::answered).sum();
        Map<String, Long> failures = timeline.errorsBetween(0, Long.MAX_VALUE);
        long failed = failures.values().stream().mapToLong(Long::longValue).sum();
        long measured = Math.max(0, rows.size() - warmupSeconds);
        long window = Math.max(1, Math.min(60, measured / 4));
        List<Timeline.Row> after = rows.subList((int) Math.min(rows.size(), warmupSeconds),
                (int) Math.min(rows.size(), warmupSeconds + window));
        List<Timeline.Row> end = rows.subList((int) Math.max(0, rows.size() - window), rows.size());
        Map<String, Growth> rss = new LinkedHashMap<>();
        Map<String, Growth> fds = new LinkedHashMap<>();
        for (String role : timeline.roles()) {
            double rssAfter = median(after, r -> r.rssKib().getOrDefault(role, -1L));
            double rssEnd = median(end, r -> r.rssKib().getOrDefault(role, -1L));
            rss.put(role, new Growth(rssAfter, rssEnd, rssAfter > 0 && rssEnd / rssAfter - 1 < RSS_LIMIT));
            double fdsMax = max(after, r -> r.fds().getOrDefault(role, -1));
            double fdsEnd = median(end, r -> r.fds().getOrDefault(role, -1));
            fds.put(role, new Growth(fdsMax, fdsEnd, fdsMax > 0 && fdsEnd <= fdsMax + FD_SLACK));
        }
        return new SoakVerdicts(answered, failed, failures, warmupSeconds, window, rss, fds);
    }

    boolean failuresMet() {
        return failed == 0 && answered > 0;
    }

    boolean rssMet() {
        return rss.values().stream().allMatch(Growth::met);
    }

    boolean fdsMet() {
        return fds.values().stream().allMatch(Growth::met);
    }

    boolean allMet() {
        return failuresMet() && rssMet() && fdsMet();
    }

    /** The median of the known (non-negative) values, NaN when none. */
    static double median(List<Timeline.Row> rows, ToDoubleFunction<Timeline.Row> value) {
        List<Double> known = new ArrayList<>();
        rows.forEach(r -> {
            double v = value.applyAsDouble(r);
            if (v >= 0) {
                known.add(v);
            }
        });
        if (known.isEmpty()) {
            return Double.NaN;
        }
        known.sort(Double::compare);
        int n = known.size();
        return n % 2 == 1 ? known.get(n / 2) : (known.get(n / 2 - 1) + known.get(n / 2)) / 2;
    }

    static double max(List<Timeline.Row> rows, ToDoubleFunction<Timeline.Row> value) {
        return rows.stream().mapToDouble(value).filter(v -> v >= 0).max().orElse(Double.NaN);
    }
}
