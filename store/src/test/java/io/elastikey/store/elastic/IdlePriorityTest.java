// IdlePriorityTest -- the resizer's thread runs at SCHED_IDLE, lookups' threads keep their priority.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
    void rebuildsRunAtNormalPriorityAndTheGrowsMemoryAndFillsFromDiskAtIdlePriority() throws Exception {
        assumeLinuxWithChrt();
        try (ElasticStore store = openStore(true)) {
            assertThat(store.resize(1 << 20).await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            assertThat(store.resize(1 << 16).await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);

            assertThat(resizerPolicies()).containsExactlyInAnyOrder(
                    Map.entry("store-resizer-i", SCHED_IDLE), // the kernel keeps 15 characters of a name
                    Map.entry("store-resizer-p", SCHED_IDLE), // the grow's memory touched ahead of its copy
                    Map.entry("store-resizer", SCHED_OTHER));
        }
    }

    @Test
    void withIdlePriorityOffEverythingRunsAtNormalPriority() throws Exception {
        assumeLinuxWithChrt();
        try (ElasticStore store = openStore(false)) {
            assertThat(store.resize(1 << 20).await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);
            assertThat(store.resize(1 << 16).await(30, TimeUnit.SECONDS)).isEqualTo(ResizeOperation.State.DONE);

            assertThat(resizerPolicies()).containsExactly(Map.entry("store-resizer", SCHED_OTHER));
        }
    }

    /** Opens a store with one entry, once the resizer threads of stores closed before have ended. */
    private ElasticStore openStore(boolean idle) throws Exception {
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                !resizerPolicies().isEmpty() && System.nanoTime() < deadline; ) {
            Thread.sleep(10);
        }
        assertThat(resizerPolicies()).as("resizer threads of stores closed before").isEmpty();
        ElasticStoreConfig config = ElasticStoreConfig.builder(dir.resolve("store-" + idle)).memoryBudgetBytes(0)
                .resizeIdlePriority(idle).build();
        ElasticStore store = ElasticStore.open(config);
        store.put("k".getBytes(), new byte[100]);
        return store;
    }

    /** The scheduling policy of each resizer thread there is, by the name the kernel shows. */
    private static List<Map.Entry<String, Integer>> resizerPolicies() throws IOException {
        List<Map.Entry<String, Integer>> policies = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    if (comm.startsWith("store-resizer")) {
                        policies.add(Map.entry(comm, IdlePriority.policyOf(task.getFileName().toString())));
                    }
                } catch (NoSuchFileException ended) {
                    // a thread (of this JVM, any) that ended between the listing and the read
                }
            }
        }
        return policies;
    }

    private static void assumeLinuxWithChrt() {
        assumeThat(IdlePriority.currentThreadId()).as("/proc/thread-self").isNotNull();
        assumeThat(Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, "chrt"))))
                .as("chrt on the PATH").isTrue();
    }
}
