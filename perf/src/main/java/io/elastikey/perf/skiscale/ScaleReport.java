// ScaleReport -- the ski-scale results: results.json, results.md (tables) and the percentile plots, rewritten per run.
package io.elastikey.perf.skiscale;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.elastikey.perf.chart.PercentileChart;
import org.HdrHistogram.Histogram;

/**
 * Holds what the benchmark learned and writes it into the output directory: {@code results.json} (everything, for
 * scripts), {@code results.md} (the tables a person reads, and the plots), {@code plots/<run>.png} (one percentile
 * plot per run) and {@code plots/<group>.png} (the runs of a group on one chart). Both files are rewritten after
 * every run, so a long benchmark that is interrupted still leaves the runs it finished; each is written to a
 * temporary file and renamed. Latencies are in milliseconds throughout.
 */
final class ScaleReport {
    private final Path directory;
    private final Map<String, Object> setup = new LinkedHashMap<>();
    private final Map<String, String> headlines = new LinkedHashMap<>();
    private final List<RunOutcome> outcomes = new ArrayList<>();
    private final int smallKeys;
    private String finished;

    ScaleReport(Path directory, int smallKeys) {
        this.directory = directory;
        this.smallKeys = smallKeys;
    }

    /** A setup fact for results.json: a string, number, boolean, {@link ServerSample}, map or list of them. */
    void setup(String key, Object value) {
        setup.put(key, value);
    }

    /** A line at the head of results.md: {@code - label: text}. */
    void headline(String label, String text) {
        headlines.put(label, text);
    }

    void add(RunOutcome outcome) {
        outcomes.add(outcome);
    }

    List<RunOutcome> outcomes() {
        return outcomes;
    }

    void finished(String when) {
        this.finished = when;
    }

    /** Writes results.json and results.md. */
    void write() throws IOException {
        Files.createDirectories(directory);
        writeJson(directory.resolve("results.json"));
        replace(directory.resolve("results.md"), markdown());
    }

    /** Draws every run's plot and the plot of each group. */
    void plots() throws IOException {
        Path plots = directory.resolve("plots");
        Files.createDirectories(plots);
        for (RunOutcome outcome : outcomes) {
            if (outcome.report() != null) {
                PercentileChart.render(outcome.run().name() + "\n" + outcome.run().describe(),
                        List.of(new PercentileChart.Series(outcome.run().name(), outcome.latency())),
                        outcome.run().targets().chartTargets(), plots.resolve(outcome.run().name() + ".png"));
            }
        }
        for (ScaleRun.Group group : ScaleRun.Group.values()) {
            List<RunOutcome> members = outcomes.stream()
                    .filter(o -> o.run().group() == group && o.report() != null).toList();
            if (members.isEmpty()) {
                continue;
            }
            List<PercentileChart.Series> series = members.stream()
                    .map(o -> new PercentileChart.Series(o.run().name(), o.latency())).toList();
            PercentileChart.render(group.title + " (" + members.size() + " runs)", series,
                    members.get(0).run().targets().chartTargets(), plots.resolve(group.file + ".png"));
        }
    }

    // ---- results.md ----

    String markdown() {
        StringBuilder md = new StringBuilder("# Key server at scale: ./elastikey bench ski-scale\n\n");
        headlines.forEach((label, text) -> md.append("- ").append(label).append(": ").append(text).append('\n'));
        if (finished != null) {
            md.append("- finished: ").append(finished).append('\n');
        }
        md.append("\nLatencies in ms. Open-loop latencies run from each request's intended start (coordinated "
                + "omission corrected); closed-loop ones from its send. \"ratio vs ").append(smallLabel())
                .append("\" is the run's rate over the rate of the same HTTP version on the first ")
                .append(String.format("%,d", smallKeys)).append(" keys, in this server run. A target is met when "
                        + "every bound is and no request failed or was answered wrong.\n\n");
        md.append("| run | keys | distribution | HTTP | loop | rate/s | p50 | p90 | p99 | p99.9 | max | errors | "
                + "ratio vs ").append(smallLabel()).append(" | target met |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (RunOutcome o : outcomes) {
            ScaleRun run = o.run();
            Histogram h = o.latency();
            boolean measured = o.report() != null && h.getTotalCount() > 0;
            md.append(String.format("| %s | %,d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    run.name(), run.keys().count(), run.keys().distribution(), run.load().http(),
                    run.load().describe(), o.report() == null ? "-" : String.format("%,.0f", o.rate()),
                    measured ? ms(h.getValueAtPercentile(50)) : "-", measured ? ms(h.getValueAtPercentile(90)) : "-",
                    measured ? ms(h.getValueAtPercentile(99)) : "-",
                    measured ? ms(h.getValueAtPercentile(99.9)) : "-", measured ? ms(h.getMaxValue()) : "-",
                    o.report() == null ? "run failed (status " + o.status() + ")" : String.format("%,d", o.errors())
                            + (o.wrongAnswers() > 0 ? String.format(" + %,d wrong", o.wrongAnswers()) : ""),
                    o.ratio() == null ? "-" : String.format("%.3f", o.ratio()),
                    o.met() ? "yes" : "**no**"));
        }
        md.append("\nTargets:\n\n");
        Map<String, List<String>> byTarget = new LinkedHashMap<>();
        for (RunOutcome o : outcomes) {
            byTarget.computeIfAbsent(o.run().targets().describe(), t -> new ArrayList<>()).add(o.run().name());
        }
        byTarget.forEach((target, names) -> md.append("- ").append(target).append(": ")
                .append(String.join(", ", names)).append('\n'));
        md.append('\n');
        md.append("## The key server after each run\n\n");
        md.append("From /proc/PID/status and the server's /metrics (\"-\": not exported), as the server reports "
                + "them (a hit ratio may be cumulative since its start). GC pauses: the stop-the-world pauses in the "
                + "server's GC log during the run and its warm-up.\n\n");
        md.append("| after run | VmRSS MiB | VmHWM MiB | key cache hit ratio | key cache evictions | "
                + "key cache bytes | store hit ratio | store memory bytes | GC pauses (longest ms) | "
                + "load average before, after |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|\n");
        if (setup.get("key_server_at_ready") instanceof ServerSample ready) {
            md.append(serverRow("(ready)", ready, "-", "-"));
        }
        for (RunOutcome o : outcomes) {
            md.append(serverRow(o.run().name(), o.server(), o.loadBefore(), o.loadAfter()));
        }
        md.append("\n## Plots\n\nHdrHistogram percentile plots: x is 1/(1-percentile) on a log scale, y the latency "
                + "in ms; one per run in plots/<run>.png.\n\n");
        for (ScaleRun.Group group : ScaleRun.Group.values()) {
            if (outcomes.stream().anyMatch(o -> o.run().group() == group && o.report() != null)) {
                md.append("![").append(group.title).append("](plots/").append(group.file).append(".png)\n\n");
            }
        }
        return md.toString();
    }

    private static String serverRow(String name, ServerSample s, String loadBefore, String loadAfter) {
        return String.format("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s |%n", name,
                ServerSample.mib(s.rssKib()), ServerSample.mib(s.hwmKib()),
                s.metric("elastikey_keys_cache_hit_ratio"), s.metric("elastikey_keys_cache_evictions_total"),
                s.metric("elastikey_keys_cache_bytes"), s.metric("elastikey_store_hit_ratio"),
                s.metric("elastikey_store_memory_bytes"),
                s.gcPauses() == 0 ? "0" : String.format("%d (%.1f)", s.gcPauses(), s.gcMaxPauseMs()),
                loadBefore, loadAfter);
    }

    private String smallLabel() {
        return smallKeys % 1000 == 0 ? smallKeys / 1000 + "k" : Integer.toString(smallKeys);
    }

    static String ms(long nanos) {
        double ms = nanos / 1e6;
        return ms >= 100 ? String.format("%.1f", ms) : ms >= 10 ? String.format("%.2f", ms)
                : String.format("%.3f", ms);
    }

    // ---- results.json ----

    private void writeJson(Path file) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (OutputStream out = Files.newOutputStream(partial);
             JsonGenerator json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            json.useDefaultPrettyPrinter();
            json.writeStartObject();
            for (Map.Entry<String, Object> fact : setup.entrySet()) {
                json.writeFieldName(fact.getKey());
                writeValue(json, fact.getValue());
            }
            if (finished != null) {
                json.writeStringField("finished", finished);
            }
            json.writeArrayFieldStart("runs");
            for (RunOutcome o : outcomes) {
                writeRun(json, o);
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private void writeRun(JsonGenerator json, RunOutcome o) throws IOException {
        ScaleRun run = o.run();
        json.writeStartObject();
        json.writeStringField("name", run.name());
        json.writeStringField("group", run.group().file);
        json.writeStringField("operation", run.operation());
        json.writeStringField("method", run.method());
        json.writeNumberField("keys", run.keys().count());
        json.writeStringField("key_file", run.keys().file().toString());
        json.writeStringField("distribution", run.keys().distribution());
        json.writeStringField("http", run.load().http());
        json.writeNumberField("connections", run.load().connections());
        json.writeStringField("loop", run.load().closedLoop() ? "closed" : "open");
        if (run.load().closedLoop()) {
            json.writeNumberField("concurrency", run.load().concurrency());
        } else {
            json.writeNumberField("rate", run.load().rate());
        }
        json.writeNumberField("duration_s", run.duration().toMillis() / 1000.0);
        json.writeNumberField("warmup_s", run.warmup().toMillis() / 1000.0);
        json.writeStringField("started", o.started().toString());
        json.writeNumberField("wall_seconds", Math.round(o.wallSeconds() * 10) / 10.0);
        json.writeNumberField("status", o.status());
        if (o.report() != null) {
            json.writeNumberField("throughput_per_second", Math.round(o.rate()));
            json.writeNumberField("sent", o.report().sent());
            json.writeNumberField("answered", o.report().answered());
            json.writeNumberField("errors", o.errors());
            json.writeObjectFieldStart("error_kinds");
            for (Map.Entry<String, Long> e : o.report().errors().entrySet()) {
                json.writeNumberField(e.getKey(), e.getValue());
            }
            json.writeEndObject();
            json.writeNumberField("verified", o.report().verified());
            json.writeNumberField("wrong_answers", o.wrongAnswers());
            Histogram h = o.latency();
            json.writeObjectFieldStart("latency_ms");
            json.writeNumberField("p50", h.getValueAtPercentile(50) / 1e6);
            json.writeNumberField("p90", h.getValueAtPercentile(90) / 1e6);
            json.writeNumberField("p99", h.getValueAtPercentile(99) / 1e6);
            json.writeNumberField("p99_9", h.getValueAtPercentile(99.9) / 1e6);
            json.writeNumberField("p99_99", h.getValueAtPercentile(99.99) / 1e6);
            json.writeNumberField("max", h.getMaxValue() / 1e6);
            json.writeNumberField("mean", h.getMean() / 1e6);
            json.writeNumberField("count", h.getTotalCount());
            json.writeEndObject();
            json.writeStringField("hgrm", "runs/" + run.name() + "/latency.hgrm");
            json.writeStringField("plot", "plots/" + run.name() + ".png");
        }
        if (run.baseline() != null) {
            json.writeStringField("ratio_baseline", run.baseline());
        }
        if (o.ratio() != null) {
            json.writeNumberField("ratio", o.ratio());
        } else {
            json.writeNullField("ratio");
        }
        json.writeStringField("targets", run.targets().describe());
        json.writeBooleanField("target_met", o.met());
        json.writeFieldName("key_server_after");
        writeValue(json, o.server());
        json.writeStringField("load_average_before", o.loadBefore());
        json.writeStringField("load_average_after", o.loadAfter());
        json.writeEndObject();
    }

    private static void writeValue(JsonGenerator json, Object value) throws IOException {
        if (value == null) {
            json.writeNull();
        } else if (value instanceof ServerSample s) {
            json.writeStartObject();
            json.writeNumberField("vm_rss_kib", s.rssKib());
            json.writeNumberField("vm_hwm_kib", s.hwmKib());
            json.writeObjectFieldStart("metrics");
            for (String name : ServerSample.METRICS) {
                Double v = s.metrics().get(name);
                if (v == null || v.isNaN()) {
                    json.writeNullField(name);
                } else {
                    json.writeNumberField(name, v);
                }
            }
            json.writeEndObject();
            json.writeNumberField("gc_pauses", s.gcPauses());
            json.writeNumberField("gc_longest_pause_ms", s.gcMaxPauseMs());
            json.writeNumberField("gc_pause_total_ms", Math.round(s.gcPauseMs() * 1000) / 1000.0);
            json.writeEndObject();
        } else if (value instanceof Map<?, ?> map) {
            json.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                json.writeFieldName(String.valueOf(e.getKey()));
                writeValue(json, e.getValue());
            }
            json.writeEndObject();
        } else if (value instanceof List<?> list) {
            json.writeStartArray();
            for (Object item : list) {
                writeValue(json, item);
            }
            json.writeEndArray();
        } else if (value instanceof Number number) {
            json.writeNumber(number.toString());
        } else if (value instanceof Boolean flag) {
            json.writeBoolean(flag);
        } else {
            json.writeString(String.valueOf(value));
        }
    }

    private static void replace(Path file, String text) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        Files.writeString(partial, text);
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
