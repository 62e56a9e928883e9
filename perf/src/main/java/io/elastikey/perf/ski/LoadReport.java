// LoadReport -- the result of a load run: printed, and saved as an HdrHistogram .hgrm and a JSON summary.
package io.elastikey.perf.ski;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.elastikey.perf.report.RunRecord;
import org.HdrHistogram.Histogram;

/**
 * What a run measured. Throughput is measured answers over the time from the first measured request's (intended)
 * start to the last measured completion. Latencies are in the histogram as nanoseconds and printed in milliseconds;
 * the {@code .hgrm} file uses milliseconds too, the unit HdrHistogram's plotter expects.
 *
 * @param description a line saying what ran (method, keys, HTTP version, mode)
 * @param settings    the run's options, for the JSON summary
 * @param latency     every recorded latency
 */
public record LoadReport(String description, Map<String, Object> settings, Histogram latency, long sent, long answered,
                  Map<String, Long> errors, long verified, long verifyFailures, long verifySkipped,
                  double seconds, long sloMillis) {

    public long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    public double throughput() {
        return seconds > 0 ? answered / seconds : 0;
    }

    public long overSlo() {
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
        out.println(RunRecord.latencyLine(latency, "answers"));
        out.printf("over %d ms  %,d%n", sloMillis, overSlo());
    }

    /** Writes the run's {@link RunRecord} files into {@code directory}. */
    void save(Path directory) throws IOException {
        RunRecord.save(directory, description, settings, seconds, throughput(), errors, latency, json -> {
            json.writeNumberField("sent", sent);
            json.writeNumberField("answered", answered);
            json.writeObjectFieldStart("verification");
            json.writeNumberField("checked", verified);
            json.writeNumberField("wrong", verifyFailures);
            json.writeNumberField("skipped", verifySkipped);
            json.writeEndObject();
            json.writeNumberField("over_slo", overSlo());
            json.writeNumberField("slo_ms", sloMillis);
        });
    }
}
