// LoadReport -- the result of a load run: printed, and saved as an HdrHistogram .hgrm and a JSON summary.
package io.elastikey.perf.ski;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * What a run measured. Throughput is measured answers over the time from the first measured request's (intended)
 * start to the last measured completion. Latencies are in the histogram as nanoseconds and printed in milliseconds;
 * the {@code .hgrm} file uses milliseconds too, the unit HdrHistogram's plotter expects.
 *
 * @param description a line saying what ran (method, keys, HTTP version, mode)
 * @param settings    the run's options, for the JSON summary
 * @param latency     every recorded latency
 */
record LoadReport(String description, Map<String, Object> settings, Histogram latency, long sent, long answered,
                  Map<String, Long> errors, long verified, long verifyFailures, long verifySkipped,
                  double seconds, long sloMillis) {

    static final String HISTOGRAM_FILE = "latency.hgrm";
    static final String SUMMARY_FILE = "summary.json";
    private static final double NANOS_PER_MILLI = 1e6;

    long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    double throughput() {
        return seconds > 0 ? answered / seconds : 0;
    }

    long overSlo() {
        return latency.getTotalCount() - latency.getCountBetweenValues(0, TimeUnit.MILLISECONDS.toNanos(sloMillis));
    }

    void print(PrintStream out) {
        out.printf("%n%s%n", description);
        out.printf("requests    %,d sent, %,d answered, %,d errors%n", sent, answered, errorCount());
        out.printf("throughput  %,.0f answers/s over %.1f s%n", throughput(), seconds);
        errors.forEach((kind, count) -> out.printf("  error     %-28s %,d%n", kind, count));
        if (verified + verifySkipped > 0) {
            out.printf("verified    %,d answers: %,d wrong%s%n", verified, verifyFailures,
                    verifySkipped > 0 ? String.format(" (%,d checks skipped: the verifier fell behind)", verifySkipped)
                            : "");
        }
        out.printf("latency ms  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (%,d answers)%n", ms(50), ms(90),
                ms(99), ms(99.9), latency.getMaxValue() / NANOS_PER_MILLI, latency.getTotalCount());
        out.printf("over %d ms  %,d%n", sloMillis, overSlo());
    }

    private double ms(double percentile) {
        return latency.getValueAtPercentile(percentile) / NANOS_PER_MILLI;
    }

    /** Writes {@value #HISTOGRAM_FILE} and {@value #SUMMARY_FILE} into {@code directory}, creating it. */
    void save(Path directory) throws IOException {
        Files.createDirectories(directory);
        try (PrintStream hgrm = new PrintStream(Files.newOutputStream(directory.resolve(HISTOGRAM_FILE)), false,
                "UTF-8")) {
            latency.outputPercentileDistribution(hgrm, NANOS_PER_MILLI);
        }
        try (OutputStream out = Files.newOutputStream(directory.resolve(SUMMARY_FILE));
             JsonGenerator json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            json.useDefaultPrettyPrinter();
            writeSummary(json);
        }
    }

    private void writeSummary(JsonGenerator json) throws IOException {
        json.writeStartObject();
        json.writeStringField("description", description);
        json.writeObjectFieldStart("settings");
        for (Map.Entry<String, Object> setting : settings.entrySet()) {
            json.writeFieldName(setting.getKey());
            Object value = setting.getValue();
            if (value instanceof Number number) {
                json.writeNumber(number.toString());
            } else {
                json.writeString(String.valueOf(value));
            }
        }
        json.writeEndObject();
        json.writeNumberField("sent", sent);
        json.writeNumberField("answered", answered);
        json.writeNumberField("seconds", seconds);
        json.writeNumberField("throughput_per_second", Math.round(throughput()));
        json.writeObjectFieldStart("errors");
        for (Map.Entry<String, Long> error : errors.entrySet()) {
            json.writeNumberField(error.getKey(), error.getValue());
        }
        json.writeEndObject();
        json.writeObjectFieldStart("verification");
        json.writeNumberField("checked", verified);
        json.writeNumberField("wrong", verifyFailures);
        json.writeNumberField("skipped", verifySkipped);
        json.writeEndObject();
        json.writeObjectFieldStart("latency_ms");
        json.writeNumberField("p50", ms(50));
        json.writeNumberField("p90", ms(90));
        json.writeNumberField("p99", ms(99));
        json.writeNumberField("p99_9", ms(99.9));
        json.writeNumberField("max", latency.getMaxValue() / NANOS_PER_MILLI);
        json.writeNumberField("mean", latency.getMean() / NANOS_PER_MILLI);
        json.writeNumberField("count", latency.getTotalCount());
        json.writeEndObject();
        json.writeNumberField("over_slo", overSlo());
        json.writeNumberField("slo_ms", sloMillis);
        json.writeEndObject();
    }
}
