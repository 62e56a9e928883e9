// RunRecord -- what every load tool saves of a run: latency.hgrm and summary.json, and its latency line.
package io.elastikey.perf.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The load generators (SKI requests, TLS handshakes) save their runs in one shape so one script can compare any
 * two: {@code latency.hgrm} in milliseconds, the unit HdrHistogram's plotter expects, and {@code summary.json} with
 * {@code description}, {@code settings}, {@code seconds}, {@code throughput_per_second}, {@code errors}, the tool's
 * own fields, and {@code latency_ms}. Latencies are recorded in nanoseconds.
 */
public final class RunRecord {
    public static final String HISTOGRAM_FILE = "latency.hgrm";
    public static final String SUMMARY_FILE = "summary.json";
    private static final double NANOS_PER_MILLI = 1e6;

    /** The fields only one tool has, written between the common ones and {@code latency_ms}. */
    @FunctionalInterface
    public interface Fields {
        void write(JsonGenerator json) throws IOException;
    }

    private RunRecord() {
    }

    /** Writes {@value #HISTOGRAM_FILE} and {@value #SUMMARY_FILE} into {@code directory}, creating it. */
    public static void save(Path directory, String description, Map<String, Object> settings, double seconds,
                            double throughput, Map<String, Long> errors, Histogram latency, Fields own)
            throws IOException {
        Files.createDirectories(directory);
        try (PrintStream hgrm = new PrintStream(Files.newOutputStream(directory.resolve(HISTOGRAM_FILE)), false,
                StandardCharsets.UTF_8)) {
            latency.outputPercentileDistribution(hgrm, NANOS_PER_MILLI);
        }
        try (OutputStream out = Files.newOutputStream(directory.resolve(SUMMARY_FILE));
             JsonGenerator json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            json.useDefaultPrettyPrinter();
            json.writeStartObject();
            json.writeStringField("description", description);
            writeSettings(json, settings);
            json.writeNumberField("seconds", seconds);
            json.writeNumberField("throughput_per_second", Math.round(throughput));
            json.writeObjectFieldStart("errors");
            for (Map.Entry<String, Long> error : errors.entrySet()) {
                json.writeNumberField(error.getKey(), error.getValue());
            }
            json.writeEndObject();
            own.write(json);
            writeLatency(json, latency);
            json.writeEndObject();
        }
    }

    /** {@code latency ms  p50 ...  max ...  (N noun)}: the line every tool prints. */
    public static String latencyLine(Histogram latency, String noun) {
        return String.format("latency ms  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (%,d %s)",
                ms(latency, 50), ms(latency, 90), ms(latency, 99), ms(latency, 99.9),
                latency.getMaxValue() / NANOS_PER_MILLI, latency.getTotalCount(), noun);
    }

    private static void writeSettings(JsonGenerator json, Map<String, Object> settings) throws IOException {
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
    }

    private static void writeLatency(JsonGenerator json, Histogram latency) throws IOException {
        json.writeObjectFieldStart("latency_ms");
        json.writeNumberField("p50", ms(latency, 50));
        json.writeNumberField("p90", ms(latency, 90));
        json.writeNumberField("p99", ms(latency, 99));
        json.writeNumberField("p99_9", ms(latency, 99.9));
        json.writeNumberField("max", latency.getMaxValue() / NANOS_PER_MILLI);
        json.writeNumberField("mean", latency.getMean() / NANOS_PER_MILLI);
        json.writeNumberField("count", latency.getTotalCount());
        json.writeEndObject();
    }

    private static double ms(Histogram latency, double percentile) {
        return latency.getValueAtPercentile(percentile) / NANOS_PER_MILLI;
    }
}
