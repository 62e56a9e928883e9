// StoreStatsTextTest -- ELASTIC.STATS's lines, from stats whose every count and percentile the test chose.
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.StoreStats;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** ELASTIC.STATS's text, from stats made up here: every lookup count and percentile is known in advance. */
class StoreStatsTextTest {

    private static StoreStats statsWith(Histogram latency) {
        return new StoreStats(10, 4096, 3, 1024, 2048, 7, 3, latency);
    }

    private static long ms(double millis) {
        return (long) (millis * TimeUnit.MILLISECONDS.toNanos(1));
    }

    @Test
    void countsTheLookupsSlowerThanFiveMilliseconds() {
        Histogram h = new Histogram(3);
        h.recordValueWithCount(ms(0.2), 995);
        h.recordValueWithCount(ms(4.9), 2);
        h.recordValueWithCount(ms(6), 2);
        h.recordValue(ms(40));

        String text = StoreCommands.statsText(statsWith(h), null, null);

        assertThat(text).contains("lookups_over_5ms:3\r\n", "lookup_p50_us:200\r\n", "lookup_max_us:40")
                .contains("hits:7\r\n", "misses:3\r\n", "hit_ratio:0.7000\r\n")
                .doesNotContain("resize_");
    }

    @Test
    void noSlowLookupsIsZeroAndThePercentilesFollowTheHistogram() {
        Histogram h = new Histogram(3);
        h.recordValueWithCount(ms(0.1), 990);
        h.recordValueWithCount(ms(1), 9);
        h.recordValue(ms(3));

        String text = StoreCommands.statsText(statsWith(h), null, null);

        assertThat(text).contains("lookups_over_5ms:0\r\n", "lookup_p99_us:100\r\n", "lookup_p999_us:1000\r\n");
    }

    @Test
    void aStoreThatRecordsNoLatencyReportsNoLatencyLines() {
        String text = StoreCommands.statsText(statsWith(new Histogram(3)), null, null);

        assertThat(text).contains("entries:10\r\n").doesNotContain("lookup_", "lookups_over_5ms");
    }

    @Test
    void theLocationTableAndTheFsyncsAreReportedForAnElasticStoreOnly() {
        assertThat(StoreCommands.statsText(statsWith(new Histogram(3)), null,
                new StoreCommands.ElasticCounters(33_554_432, 417)))
                .contains("location_table_bytes:33554432\r\n", "log_fsyncs:417\r\n");
        assertThat(StoreCommands.statsText(statsWith(new Histogram(3)), null, null))
                .doesNotContain("location_table_bytes", "log_fsyncs");
    }
}
