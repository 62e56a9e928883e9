// ServerSample -- the key server's state between two runs: memory from /proc, cache figures from /metrics, GC pauses.
package io.elastikey.perf.skiscale;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link KeyServerProcess#sample()} reads after a run. A figure the server does not (yet) export is absent from
 * {@link #metrics} and printed as "-"; a memory figure that could not be read is -1.
 *
 * @param rssKib        {@code VmRSS} of {@code /proc/PID/status}
 * @param hwmKib        {@code VmHWM}: the peak resident set since the server started
 * @param metrics       the {@link #METRICS} the server exported, by name
 * @param gcPauses      stop-the-world GC pauses logged since the previous sample (the run and its warm-up)
 * @param gcMaxPauseMs  the longest of them
 * @param gcPauseMs     their sum
 */
record ServerSample(long rssKib, long hwmKib, Map<String, Double> metrics, int gcPauses, double gcMaxPauseMs,
                    double gcPauseMs) {

    /** The Prometheus series scraped from the key server's {@code /metrics}, in the order results show them. */
    static final List<String> METRICS = List.of(
            "elastikey_keys_cache_hit_ratio",
            "elastikey_keys_cache_evictions_total",
            "elastikey_keys_cache_bytes",
            "elastikey_store_hit_ratio",
            "elastikey_store_memory_bytes",
            "elastikey_keys_reload_loaded",
            "elastikey_keys_reload_planned");

    static final ServerSample NONE = new ServerSample(-1, -1, Map.of(), 0, 0, 0);

    /**
     * The {@link #METRICS} found in a Prometheus text exposition. A series with several label sets is summed (a
     * ratio takes its first), comments and other series are skipped.
     */
    static Map<String, Double> parseMetrics(String exposition) {
        Map<String, Double> found = new LinkedHashMap<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            String name = line.substring(0, end);
            if (!METRICS.contains(name)) {
                continue;
            }
            int valueStart = end < line.length() && line.charAt(end) == '{' ? line.lastIndexOf('}') + 1 : end;
            double value;
            try {
                value = Double.parseDouble(line.substring(valueStart).trim().split("\\s+")[0]);
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                continue;
            }
            found.merge(name, value, (a, b) -> name.endsWith("_ratio") ? a : a + b);
        }
        return found;
    }

    /** A metric for a table cell: "-" when absent, a ratio to three places, counts and bytes as integers. */
    String metric(String name) {
        Double value = metrics.get(name);
        if (value == null || value.isNaN()) {
            return "-";
        }
        return name.endsWith("_ratio") ? String.format("%.3f", value) : String.format("%,.0f", value);
    }

    static String mib(long kib) {
        return kib < 0 ? "-" : String.format("%,.0f", kib / 1024.0);
    }
}
