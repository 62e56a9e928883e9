// IdlePriorityTest -- the resizer's thread runs at SCHED_IDLE, lookups' threads keep their priority.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads the scheduling policy the kernel reports for each thread ({@code /proc/self/task/<tid>/stat}, field 41):
 * 0 is SCHED_OTHER, 5 SCHED_IDLE. Needs Linux and util-linux's {@code chrt}; skipped elsewhere.
 */
class IdlePriorityTest {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;

    @TempDir
    Path dir;

    @Test
    void lowersOnlyTheCallingThread() throws Exception {
        assumeLinuxWithChrt();
        AtomicReference<IdlePriority.Outcome> outcome = new AtomicReference<>();
        AtomicReference<Integer> policyInside = new AtomicReference<>();
        Thread t = new Thread(() -> {
            outcome.set(IdlePriority.lowerCurrentThread());
            try {
                policyInside.set(IdlePriority.policyOf(IdlePriority.currentThreadId()));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        t.join();

        assertThat(outcome.get()).isEqualTo(IdlePriority.Outcome.IDLE);
        assertThat(policyInside.get()).isEqualTo(SCHED_IDLE);
        assertThat(IdlePriority.policyOf(IdlePriority.currentThreadId())).isEqualTo(SCHED_OTHER);
    }

    @Test
    void theResizerRunsAtIdlePriorityByDefaultAndAtNormalPriorityWhenAskedTo() throws Exception {
        assumeLinuxWithChrt();
        assertThat(resizerPolicies(true)).containsOnly(SCHED_IDLE);
        assertThat(resizerPolicies(false)).containsOnly(SCHED_OTHER);
    }

    /** Opens a store, runs one resize, and reads the policy of every thread named like the resizer. */
    private List<Integer> resizerPolicies(boolean idle) throws Exception {
        Path storeDir = dir.resolve("store-" + idle);
        ElasticStoreConfig config = ElasticStoreConfig.builder(storeDir).memoryBudgetBytes(0)
                .resizeIdlePriority(idle).build();
        try (ElasticStore store = ElasticStore.open(config)) {
            store.put("k".getBytes(), new byte[100]);
            assertThat(store.resize(1 << 20).await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            List<Integer> policies = new ArrayList<>();
            try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : tasks.toList()) {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    if (comm.startsWith("elasticstore-re")) { // the kernel keeps 15 characters of the name
                        policies.add(IdlePriority.policyOf(task.getFileName().toString()));
                    }
                }
            }
            assertThat(policies).as("resizer threads").isNotEmpty();
            return policies;
        }
    }

    private static void assumeLinuxWithChrt() {
        assumeThat(IdlePriority.currentThreadId()).as("/proc/thread-self").isNotNull();
        assumeThat(Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, "chrt"))))
                .as("chrt on the PATH").isTrue();
    }
}
