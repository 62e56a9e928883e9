// HandshakeReport -- the result of a handshake run: printed, and saved as an HdrHistogram .hgrm and a JSON summary.
package io.elastikey.perf.handshake;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

import io.elastikey.perf.report.RunRecord;
import org.HdrHistogram.Histogram;

/**
 * What a run measured, saved as a {@link RunRecord} with how many handshakes the client saw resumed. Throughput is completed handshakes over the time from the first measured connection's (intended)
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
        out.println(RunRecord.latencyLine(latency, "handshakes"));
    }

    /** Writes the run's {@link RunRecord} files into {@code directory}. */
    void save(Path directory) throws IOException {
        RunRecord.save(directory, description, settings, seconds, throughput(), errors, latency, json -> {
            json.writeNumberField("connections", attempts);
            json.writeNumberField("handshakes", handshakes);
            json.writeObjectFieldStart("resumption");
            json.writeNumberField("resumed", resumed);
            json.writeNumberField("full", full);
            json.writeNumberField("unknown", unknown);
            json.writeEndObject();
        });
    }
}
