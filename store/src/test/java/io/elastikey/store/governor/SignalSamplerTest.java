// SignalSamplerTest -- rates over the ticker's interval, misses of absent keys left out, the miss p99.
package io.elastikey.store.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.elastic.ResizeOperation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SignalSamplerTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void ratesCoverTheIntervalAndLeaveOutAbsentKeys() throws Exception {
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .indexCapacity(1024).fsyncPolicy(FsyncPolicy.NEVER).build())) {
            store.put(b("present"), b("value"));
            SignalSampler sampler = new SignalSampler(store, new ProcMemory(dir.resolve("no"), dir.resolve("no")));
            Signals first = sampler.sample(0);
            assertThat(first.intervalNanos()).isZero();
            assertThat(first.requestRate()).isZero();
            assertThat(first.hitRatio()).isNaN();
            assertThat(first.missLatencyP99Nanos()).isEqualTo(-1);
            assertThat(first.residentBytes()).isEqualTo(-1);

            for (int i = 0; i < 30; i++) {
                store.get(b("present")); // a miss: no memory tier
            }
            for (int i = 0; i < 10; i++) {
                store.get(b("absent")); // a miss no memory would answer
            }
            Signals second = sampler.sample(TimeUnit.SECONDS.toNanos(2));
            assertThat(second.intervalNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
            assertThat(second.requestRate()).isEqualTo(20.0);
            assertThat(second.missRate()).isEqualTo(15.0);
            assertThat(second.hitRatio()).isEqualTo(0.0);
            assertThat(second.missLatencyP99Nanos()).isPositive();
            assertThat(second.entries()).isEqualTo(1);
            assertThat(second.allEntriesBytes()).isPositive();

            Signals third = sampler.sample(TimeUnit.SECONDS.toNanos(3)); // nothing happened since
            assertThat(third.requestRate()).isZero();
            assertThat(third.missLatencyP99Nanos()).isEqualTo(-1);
        }
    }

    @Test
    void seesARunningResize() throws Exception {
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .indexCapacity(1024).fsyncPolicy(FsyncPolicy.NEVER).build())) {
            SignalSampler sampler = new SignalSampler(store, ProcMemory.system());
            ResizeOperation op = store.resize(1 << 20);
            Signals s = sampler.sample(0);
            assertThat(s.budgetBytes()).isEqualTo(1 << 20);
            op.await(30, TimeUnit.SECONDS);
            assertThat(sampler.sample(1).resizing()).isFalse();
        }
    }
}
