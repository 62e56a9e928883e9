// HandshakeReport -- the result of a handshake run: printed, and saved as an HdrHistogram .hgrm and a JSON summary.
package io.elastikey.perf.handshake;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.HdrHistogram.Histogram;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * What a run measured, in the shape of the SKI load generator's report ({@code latency.hgrm} in milliseconds, and
 * {@code summary.json} with the same {@code description}, {@code settings}, {@code seconds},
 * {@code throughput_per_second}, {@code errors} and {@code latency_ms} fields), plus how many handshakes the client
 * saw resumed. Throughput is completed handshakes over the time from the first measured connection's (intended)
 * start to the last one's close.
 *
 * @param attempts       measured connections, whatever became of them
 * @param handshakes     of those, handshakes that completed (the histogram's count)
 * @param resumed        handshakes BoringSSL reports as resumed
 * @param full           handshakes BoringSSL reports as full
 * @param unknown        handshakes whose kind the engine cannot tell (the JDK fallback)
 */
record HandshakeReport(String description, Map<String, Object> settings, Histogram latency, long attempts,
                       long handshakes, long resumed, long full, long unknown,
                       Map<String, Long> errors, double seconds) {

    static final String HISTOGRAM_FILE = "latency.hgrm";
    static final String SUMMARY_FILE = "summary.json";
    private static final double NANOS_PER_MILLI = 1e6;

    long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    double throughput() {
        return seconds > 0 ? handshakes / seconds : 0;
    }

    void print(PrintStream out) {
        out.printf("%n%s%n", description);
        out.printf("connections %,d started, %,d handshakes, %,d errors%n", attempts, handshakes, errorCount());
        out.printf("throughput  %,.0f handshakes/s over %.1f s%n", throughput(), seconds);
        errors.forEach((kind, count) -> out.printf("  error     %-28s %,d%n", kind, count));
        out.printf("resumption  %,d resumed, %,d full%s (as the client saw them)%n", resumed, full,
                unknown > 0 ? String.format(", %,d unknown", unknown) : "");
        out.printf("latency ms  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (%,d handshakes)%n", ms(50),
                ms(90), ms(99), ms(99.9), latency.getMaxValue() / NANOS_PER_MILLI, latency.getTotalCount());
    }

    private double ms(double percentile) {
        return latency.getValueAtPercentile(percentile) / NANOS_PER_MILLI;
    }

    /** Writes {@value #HISTOGRAM_FILE} and {@value #SUMMARY_FILE} into {@code directory}, creating it. */
    void save(Path directory) throws IOException {
        Files.createDirectories(directory);
        try (PrintStream hgrm = new PrintStream(Files.newOutputStream(directory.resolve(HISTOGRAM_FILE)), false,
                StandardCharsets.UTF_8)) {
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
            } else if (value instanceof Boolean flag) {
                json.writeBoolean(flag);
            } else {
                json.writeString(String.valueOf(value));
            }
        }
        json.writeEndObject();
        json.writeNumberField("connections", attempts);
        json.writeNumberField("handshakes", handshakes);
        json.writeNumberField("seconds", seconds);
        json.writeNumberField("throughput_per_second", Math.round(throughput()));
        json.writeObjectFieldStart("errors");
        for (Map.Entry<String, Long> error : errors.entrySet()) {
            json.writeNumberField(error.getKey(), error.getValue());
        }
        json.writeEndObject();
        json.writeObjectFieldStart("resumption");
        json.writeNumberField("resumed", resumed);
        json.writeNumberField("full", full);
        json.writeNumberField("unknown", unknown);
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
        json.writeEndObject();
    }
}
