package io.elastikey.resp.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RespWarmupTest {
    @TempDir
    Path dir;

    private ElasticStoreConfig real() {
        return ElasticStoreConfig.builder(dir.resolve("data")).fsyncPolicy(FsyncPolicy.GROUP)
                .memoryBudgetBytes(16 << 20).indexCapacity(1024).build();
    }

    @Test
    void itAnswersRequestsBesideTheRealStoreAndLeavesNothingBehind() throws Exception {
        ElasticStoreConfig config = real();
        try (ElasticStore store = ElasticStore.open(config)) {
            store.put("mine".getBytes(StandardCharsets.UTF_8), "kept".getBytes(StandardCharsets.UTF_8));
            Path stale = Files.createDirectories(config.directory().resolve(RespWarmup.DIRECTORY).resolve("old"));
            Files.writeString(stale.resolve("0000000001.seg"), "left by a killed start");

            long answered = RespWarmup.run(config, 1, Duration.ofMillis(1500));

            assertThat(answered).isGreaterThan(0);
            assertThat(config.directory().resolve(RespWarmup.DIRECTORY)).doesNotExist();
            assertThat(store.size()).isEqualTo(1);
            assertThat(store.get("mine".getBytes(StandardCharsets.UTF_8)))
                    .isEqualTo("kept".getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void theThrowawayStoreKeepsTheRealOnesDurabilityAndReadPathAndIsSmall() {
        ElasticStoreConfig throwaway = RespWarmup.throwaway(real(), dir.resolve("w"));
        assertThat(throwaway.fsyncPolicy()).isEqualTo(FsyncPolicy.GROUP);
        assertThat(throwaway.directReads()).isEqualTo(real().directReads());
        assertThat(throwaway.locationTable()).isEqualTo(real().locationTable());
        assertThat(throwaway.memoryBudgetBytes()).isLessThanOrEqualTo(8 << 20);
        assertThat(throwaway.directory()).isEqualTo(dir.resolve("w"));
    }

    @Test
    void noBudgetRunsNothingAndMakesNoDirectory() throws Exception {
        assertThat(RespWarmup.run(real(), 1, Duration.ZERO)).isZero();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
