// Targets -- what a run of the ski-scale matrix must reach: a rate, a ratio to the 1,000-key run, latency bounds.
package io.elastikey.perf.skiscale;

import java.util.ArrayList;
import java.util.List;

import io.elastikey.perf.chart.PercentileChart;
import org.HdrHistogram.Histogram;

/**
 * The key server's targets at the use case's scale (issue 12). Each bound is optional (null: none). A run meets its
 * targets when it reaches every bound it has, answered without a single error, and no sampled answer was wrong: a
 * fast run that dropped or botched requests has not met anything.
 *
 * @param minRate   answers per second at least (closed loop)
 * @param minRatio  at least this share of the same HTTP version's 1,000-key rate in the same run
 * @param p99Ms     p99 below this
 * @param p999Ms    p99.9 below this
 * @param maxMs     every answer below this
 */
record Targets(Double minRate, Double minRatio, Double p99Ms, Double p999Ms, Double maxMs) {
    /** ECDSA P-256 closed loop on the first keys: the rate alone. */
    static final Targets ECDSA_CLOSED_SMALL = new Targets(30_000.0, null, null, null, null);
    /** ECDSA P-256 closed loop on every key: the rate, and no more than 10% below the small key set's. */
    static final Targets ECDSA_CLOSED_ALL = new Targets(30_000.0, 0.9, null, null, null);
    /** ECDSA P-256 open loop at 21,000/s. */
    static final Targets ECDSA_OPEN = new Targets(null, null, 2.0, 10.0, 120.0);
    /** ECDSA P-256 closed loop on every key just after a restart: within 10% of the warm server's rate. */
    static final Targets ECDSA_RESTART = new Targets(null, 0.9, null, null, null);
    /** RSA-2048 decryption, closed loop. */
    static final Targets RSA_CLOSED = new Targets(4_500.0, null, null, null, null);
    /** RSA-2048 decryption, open loop at 70% of the closed-loop rate. */
    static final Targets RSA_OPEN = new Targets(null, null, 5.0, null, 120.0);

    /** E.g. {@code >= 30,000/s, ratio >= 0.9}. */
    String describe() {
        List<String> parts = new ArrayList<>();
        if (minRate != null) {
            parts.add(String.format(">= %,.0f/s", minRate));
        }
        if (minRatio != null) {
            parts.add("ratio >= " + minRatio);
        }
        if (p99Ms != null) {
            parts.add("p99 < " + number(p99Ms) + " ms");
        }
        if (p999Ms != null) {
            parts.add("p99.9 < " + number(p999Ms) + " ms");
        }
        if (maxMs != null) {
            parts.add("max < " + number(maxMs) + " ms");
        }
        parts.add("no errors");
        return String.join(", ", parts);
    }

    /** Whether a run with these figures meets every bound. {@code ratio} null fails a ratio bound. */
    boolean met(double rate, Double ratio, Histogram latencyNanos, long errors, long wrongAnswers) {
        boolean met = errors == 0 && wrongAnswers == 0 && latencyNanos.getTotalCount() > 0;
        met &= minRate == null || rate >= minRate;
        met &= minRatio == null || ratio != null && ratio >= minRatio;
        met &= p99Ms == null || latencyNanos.getValueAtPercentile(99) / 1e6 < p99Ms;
        met &= p999Ms == null || latencyNanos.getValueAtPercentile(99.9) / 1e6 < p999Ms;
        met &= maxMs == null || latencyNanos.getMaxValue() / 1e6 < maxMs;
        return met;
    }

    /** The latency bounds as marks on a percentile plot. */
    List<PercentileChart.Target> chartTargets() {
        List<PercentileChart.Target> marks = new ArrayList<>();
        if (p99Ms != null) {
            marks.add(new PercentileChart.Target(99, p99Ms, "p99 < " + number(p99Ms) + " ms"));
        }
        if (p999Ms != null) {
            marks.add(new PercentileChart.Target(99.9, p999Ms, "p99.9 < " + number(p999Ms) + " ms"));
        }
        if (maxMs != null) {
            marks.add(new PercentileChart.Target(100, maxMs, "max < " + number(maxMs) + " ms"));
        }
        return marks;
    }

    private static String number(double v) {
        return v == Math.rint(v) ? String.format("%.0f", v) : Double.toString(v);
    }
}
