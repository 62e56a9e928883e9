// StoreOptionsTest -- the store's command-line options become the ElasticStore configuration they name.
package io.elastikey.resp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class StoreOptionsTest {

    private static ElasticStoreConfig parse(String... args) {
        StoreOptions options = new StoreOptions();
        new CommandLine(options).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args); // as the launcher does
        return options.config();
    }

    @Test
    void theLocationTableIsOnUnlessTurnedOff() {
        assertThat(parse("--data", "/var/tmp/x").locationTable()).isTrue();
        assertThat(parse("--data", "/var/tmp/x", "--no-location-table").locationTable()).isFalse();
    }

    @Test
    void explicitSettingsReachTheConfiguration() {
        ElasticStoreConfig c = parse("--data", "/var/tmp/x", "--memory", "256m", "--fsync", "everysec",
                "--direct-reads", "on", "--max-value-size", "65536", "--index-capacity", "2000000");
        assertThat(c.memoryBudgetBytes()).isEqualTo(256L << 20);
        assertThat(c.fsyncPolicy()).isEqualTo(FsyncPolicy.EVERYSEC);
        assertThat(c.directReads()).isTrue();
        assertThat(c.maxValueSize()).isEqualTo(65536);
        assertThat(c.indexCapacity()).isEqualTo(2_000_000);
    }
}
