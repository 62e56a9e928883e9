// GenerateCommandTest -- how `keys generate` splits its work between threads.
package io.elastikey.keyserver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GenerateCommandTest {
    @Test
    void largeCountsKeepTheGivenBatch() {
        assertThat(GenerateCommand.batchSize(1_000_000, 1000, 2)).isEqualTo(1000);
        assertThat(GenerateCommand.batchSize(10_000, 1000, 2)).isEqualTo(1000);
    }

    @Test
    void aCountOfOneBatchIsSplitSoEveryThreadWorks() {
        assertThat(GenerateCommand.batchSize(1000, 1000, 2)).isEqualTo(500);
        assertThat(GenerateCommand.batchSize(1001, 1000, 2)).isEqualTo(501);
        assertThat(GenerateCommand.batchSize(3, 1000, 8)).isEqualTo(1);
        assertThat(GenerateCommand.batchSize(1, 1000, 2)).isEqualTo(1);
    }
}
