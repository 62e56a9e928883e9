// RunOutcome -- what one run of the matrix gave: the load generator's report, the ratio, the server's state after.
package io.elastikey.perf.skiscale;

import java.time.Instant;

import io.elastikey.perf.ski.LoadReport;
import org.HdrHistogram.Histogram;

/**
 * @param run         what ran
 * @param status      the load generator's exit status (0 ran and every checked answer was right)
 * @param report      its report, or null when it stopped before measuring (unreachable server, bad options)
 * @param ratio       the rate over the baseline run's rate (same HTTP version, same server run), or null
 * @param server      the key server right after the run
 * @param loadBefore  the machine's 1-minute load average before the run
 * @param loadAfter   and after it
 * @param started     when it started
 * @param wallSeconds how long it took, key loading and warm-up included
 */
record RunOutcome(ScaleRun run, int status, LoadReport report, Double ratio, ServerSample server, String loadBefore,
                  String loadAfter, Instant started, double wallSeconds) {

    double rate() {
        return report == null ? 0 : report.throughput();
    }

    Histogram latency() {
        return report == null ? new Histogram(3) : report.latency();
    }

    long errors() {
        return report == null ? 0 : report.errorCount();
    }

    long wrongAnswers() {
        return report == null ? 0 : report.verifyFailures();
    }

    boolean met() {
        return report != null && run.targets().met(rate(), ratio, report.latency(), errors(), wrongAnswers());
    }

    RunOutcome withRatio(Double newRatio) {
        return new RunOutcome(run, status, report, newRatio, server, loadBefore, loadAfter, started, wallSeconds);
    }
}
