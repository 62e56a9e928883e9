// ScaleReportTest -- targets judged, server figures parsed, and the results written as tables, JSON and plots.
package io.elastikey.perf.skiscale;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.elastikey.perf.ski.LoadReport;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleReportTest {
    @TempDir
    Path directory;

    @Test
    void targetsNeedEveryBoundAndNoErrors() {
        Histogram fast = latencies(1_000_000, 3_000_000);
        Histogram slowTail = latencies(1_000_000, 150_000_000);

        assertThat(Targets.ECDSA_OPEN.met(21_000, null, fast, 0, 0)).isTrue();
        assertThat(Targets.ECDSA_OPEN.met(21_000, null, slowTail, 0, 0)).as("max over 120 ms").isFalse();
        assertThat(Targets.ECDSA_OPEN.met(21_000, null, fast, 1, 0)).as("an error").isFalse();
        assertThat(Targets.ECDSA_CLOSED_ALL.met(31_000, 0.95, fast, 0, 0)).isTrue();
        assertThat(Targets.ECDSA_CLOSED_ALL.met(31_000, 0.85, fast, 0, 0)).as("ratio").isFalse();
        assertThat(Targets.ECDSA_CLOSED_ALL.met(31_000, null, fast, 0, 0)).as("no baseline").isFalse();
        assertThat(Targets.RSA_CLOSED.met(4_400, null, fast, 0, 0)).isFalse();
        assertThat(Targets.RSA_CLOSED.met(4_600, null, fast, 0, 1)).as("a wrong answer").isFalse();
        assertThat(Targets.ECDSA_CLOSED_ALL.describe()).isEqualTo(">= 30,000/s, ratio >= 0.9, no errors");
    }

    @Test
    void metricsAreReadFromPrometheusTextAndAbsentOnesShowAsADash() {
        String exposition = """
                # HELP elastikey_keys_cache_hit_ratio Hit ratio of the parsed-key cache
                # TYPE elastikey_keys_cache_hit_ratio gauge
                elastikey_keys_cache_hit_ratio 0.875
                elastikey_keys_cache_evictions_total{cache="parsed"} 10.0
                elastikey_keys_cache_evictions_total{cache="sealed"} 5.0
                elastikey_store_memory_bytes 4177627.0
                elastikey_keys_stored 1010000.0
                """;

        Map<String, Double> metrics = ServerSample.parseMetrics(exposition);
        ServerSample sample = new ServerSample(2048, 4096, metrics, 0, 0, 0);

        assertThat(metrics).containsEntry("elastikey_keys_cache_hit_ratio", 0.875)
                .containsEntry("elastikey_keys_cache_evictions_total", 15.0)
                .doesNotContainKey("elastikey_keys_stored");
        assertThat(sample.metric("elastikey_keys_cache_hit_ratio")).isEqualTo("0.875");
        assertThat(sample.metric("elastikey_keys_cache_bytes")).isEqualTo("-");
        assertThat(ServerSample.mib(sample.hwmKib())).isEqualTo("4");
    }

    @Test
    void writesTheTableTheJsonAndAPlotPerRunAndGroup() throws Exception {
        ScaleReport report = new ScaleReport(directory, 1000);
        report.headline("command", "`./elastikey bench ski-scale --quick`");
        report.setup("key_server_at_ready", ServerSample.NONE);
        ScaleRun small = run("ecdsa-h2-closed-1k", 1000, null, Targets.ECDSA_CLOSED_SMALL);
        ScaleRun all = run("ecdsa-h2-closed-all-zipf", 100_000, "ecdsa-h2-closed-1k", Targets.ECDSA_CLOSED_ALL);
        report.add(outcome(small, 32_000, null));
        report.add(outcome(all, 28_800, 0.9));
        report.write();
        report.plots();

        String md = Files.readString(directory.resolve("results.md"));
        assertThat(md).contains("- command: `./elastikey bench ski-scale --quick`")
                .contains("| run | keys | distribution | HTTP | loop | rate/s | p50 | p90 | p99 | p99.9 | max "
                        + "| errors | ratio vs 1k | target met |")
                .contains("| ecdsa-h2-closed-1k | 1,000 | first 1,000, uniform | 2 | closed, 256 in flight | 32,000 |")
                .contains("| 0 | - | yes |")
                .contains("| ecdsa-h2-closed-all-zipf | 100,000 | zipf 1.1 |")
                .contains("| 0.900 | **no** |")
                .contains("![ECDSA P-256 SIGN, closed loop](plots/closed-loop.png)");
        String json = Files.readString(directory.resolve("results.json"));
        assertThat(json).contains("\"name\" : \"ecdsa-h2-closed-all-zipf\"").contains("\"ratio\" : 0.9")
                .contains("\"target_met\" : false").contains("\"elastikey_keys_cache_bytes\" : null");
        assertThat(directory.resolve("plots/ecdsa-h2-closed-1k.png")).exists();
        assertThat(directory.resolve("plots/closed-loop.png")).exists();
    }

    private static ScaleRun run(String name, long keys, String baseline, Targets targets) {
        Integer limit = baseline == null ? 1000 : null;
        return new ScaleRun(name, ScaleRun.Group.CLOSED, "ECDSA P-256 SIGN", "SIGN",
                new ScaleRun.Keys(Path.of("ec256.keys"), keys, limit, limit == null ? "zipf" : "random", 1.1),
                new ScaleRun.Load("2", 1, true, 256, 0), Duration.ofSeconds(20), Duration.ofSeconds(5), targets,
                baseline);
    }

    private static RunOutcome outcome(ScaleRun run, double rate, Double ratio) {
        Histogram latency = latencies(2_000_000, 9_000_000);
        LoadReport report = new LoadReport(run.name(), Map.of(), latency, 100, (long) (rate * 20), Map.of(), 10, 0,
                0, 20, 120);
        return new RunOutcome(run, 0, report, ratio, ServerSample.NONE, "0.5", "1.5", Instant.EPOCH, 25);
    }

    private static Histogram latencies(long typicalNanos, long maxNanos) {
        Histogram h = new Histogram(3);
        h.recordValueWithCount(typicalNanos, 10_000);
        h.recordValue(maxNanos);
        return h;
    }
}
