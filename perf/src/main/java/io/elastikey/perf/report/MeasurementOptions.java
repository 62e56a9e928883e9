// MeasurementOptions -- the options every load tool shares: how long to warm up, how long to measure, where to save.
package io.elastikey.perf.report;

import io.elastikey.perf.ski.OptionConverters;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A picocli mixin, so {@code --duration}, {@code --warmup} and {@code --result} read, check and report the same way
 * in every load generator, and a run's settings name them alike in {@code summary.json}.
 */
public final class MeasurementOptions {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--duration", defaultValue = "30", converter = OptionConverters.DurationConverter.class,
            description = "Measured time: seconds, or with a unit (500ms, 2m) (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--warmup", defaultValue = "5", converter = OptionConverters.DurationConverter.class,
            description = "Unrecorded time before, at the same load (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--result", paramLabel = "DIR", description = "Save latency.hgrm and summary.json here.")
    Path resultDirectory;

    public Duration duration() {
        return duration;
    }

    public Duration warmup() {
        return warmup;
    }

    /** Rejects a duration that is not positive or a negative warm-up, as a usage error of the command. */
    public void validate() {
        if (duration.isNegative() || duration.isZero()) {
            throw new ParameterException(spec.commandLine(), "--duration must be positive");
        }
        if (warmup.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--warmup must not be negative");
        }
    }

    /** Open loop at {@code rate} per second: how many arrivals the warm-up holds. */
    public long warmupCount(long rate) {
        return rate * warmup.toNanos() / NANOS_PER_SECOND;
    }

    /** Open loop at {@code rate} per second: how many arrivals are measured, at least one. */
    public long measuredCount(long rate) {
        return Math.max(1, rate * duration.toNanos() / NANOS_PER_SECOND);
    }

    /** {@code 30 s measured after 5 s warm-up}, for the run's description line. */
    public String describe() {
        return human(duration) + " measured after " + human(warmup) + " warm-up";
    }

    /** Adds {@code duration_s} and {@code warmup_s} to a run's settings. */
    public void addTo(Map<String, Object> settings) {
        settings.put("duration_s", duration.toMillis() / 1000.0);
        settings.put("warmup_s", warmup.toMillis() / 1000.0);
    }

    /** With {@code --result}: saves the run through {@code save} and says where. */
    public void saveIfAsked(Saver save, PrintStream out) throws IOException {
        if (resultDirectory != null) {
            save.saveTo(resultDirectory);
            out.println("saved " + resultDirectory.resolve(RunRecord.HISTOGRAM_FILE) + " and "
                    + resultDirectory.resolve(RunRecord.SUMMARY_FILE));
        }
    }

    /** A report's {@code save(Path)}. */
    @FunctionalInterface
    public interface Saver {
        void saveTo(Path directory) throws IOException;
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
