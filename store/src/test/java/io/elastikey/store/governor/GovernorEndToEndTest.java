// GovernorEndToEndTest -- the whole scale-up loop: a real ElasticStore, the JNI client, scaleupd in its own JVM.
package io.elastikey.store.governor;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.agent.cli.ScaleUpDaemonCommand;
import io.elastikey.scaleup.jni.NativeScaleUpClient;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import io.elastikey.store.elastic.ChildJvm;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.governor.Decision.Kind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A miss-heavy workload makes the governor ask scaleupd (a separate JVM, reached through libscaleup and JNI) for
 * memory; the grant becomes a bigger in-memory table and the hit ratio rises; a quiet period gives the memory back.
 * A small pool answers partial, then denied; a SIGKILLed agent leaves the store serving on the budget it has.
 *
 * <p>The governor's clock is driven by hand (one tick is one "second") so the test waits on conditions, never on
 * time; the agent, the socket, the client and the store are all real.
 */
class GovernorEndToEndTest {
    private static final long MIB = 1L << 20;
    private static final long SECOND = 1_000_000_000L;
    private static final int KEYS = 3_000;
    private static final int VALUE_SIZE = 4_000;
    private static final int LOOKUPS_PER_TICK = 600;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final SplittableRandom random = new SplittableRandom(11);
    private Path socket;
    private Process agent;
    private ElasticStore store;
    private MemoryGovernor governor;
    private long wrongAnswers;
    private long hits;
    private long lookups;

    @BeforeEach
    void openStore() {
        socket = dir.resolve("scaleupd.sock");
        store = NumberedStore.open(dir.resolve("store"), 2 * MIB, KEYS, VALUE_SIZE);
    }

    @AfterEach
    void stop() throws Exception {
        if (governor != null) {
            governor.close();
        }
        store.close();
        killAgent();
    }

    @Test
    void missesBuyMemoryThatRaisesTheHitRatioAndAQuietStoreGivesItBack() throws Exception {
        startAgent("64m");
        governor = governor(GovernorConfig.builder().maxBudgetBytes(32 * MIB));
        assertThat(governor.client()).isInstanceOf(NativeScaleUpClient.class);

        double firstHitRatio = tickWindow(1); // the first contact: a sync of the 2 MiB budget
        assertThat(agentGrantMb()).isEqualTo(2);
        List<Long> budgets = new ArrayList<>();
        for (int i = 0; i < 40 && store.stats().memoryEntries() < KEYS; i++) {
            if (tick(LOOKUPS_PER_TICK).kind() == Kind.GROW) {
                budgets.add(store.stats().memoryBudgetBytes() / MIB);
            }
        }
        double lastHitRatio = tickWindow(3);

        assertThat(budgets).hasSizeGreaterThanOrEqualTo(2).isSorted();
        assertThat(store.stats().memoryEntries()).isEqualTo(KEYS);
        long grown = store.stats().memoryBudgetBytes() / MIB;
        assertThat(agentGrantMb()).as("what scaleupd granted is what the store uses").isEqualTo(grown);
        assertThat(firstHitRatio).isLessThan(0.5);
        assertThat(lastHitRatio).isEqualTo(1.0);
        assertThat(wrongAnswers).isZero();

        // Quiet: no lookups. Shrink steps follow the quiet period; each is given back to the agent after it.
        for (int i = 0; i < 60 && agentGrantMb() > 2; i++) {
            tick(0);
        }
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(2 * MIB);
        assertThat(agentGrantMb()).isEqualTo(2);
        assertThat(governor.stats().decisions(Kind.SHRINK)).isPositive();
        assertThat(verifyAll()).isEqualTo(KEYS);
    }

    @Test
    void aSmallPoolAnswersPartialThenDeniedAndTheBudgetFollowsTheGrant() throws Exception {
        startAgent("9m");
        governor = governor(GovernorConfig.builder().maxBudgetBytes(32 * MIB));

        for (int i = 0; i < 30 && governor.stats().outcomes(Outcome.DENIED) == 0; i++) {
            tick(LOOKUPS_PER_TICK);
        }

        GovernorStats stats = governor.stats();
        assertThat(stats.outcomes(Outcome.PARTIAL)).isEqualTo(1);
        assertThat(stats.outcomes(Outcome.DENIED)).isPositive();
        assertThat(agentGrantMb()).isEqualTo(9);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(9 * MIB);
        assertThat(wrongAnswers).isZero();
    }

    @Test
    void aKilledAgentLeavesTheStoreServingAndItsRestartIsFoundAgain() throws Exception {
        startAgent("64m");
        governor = governor(GovernorConfig.builder().maxBudgetBytes(32 * MIB));
        while (governor.stats().decisions(Kind.GROW) == 0) {
            tick(LOOKUPS_PER_TICK);
        }
        long budget = store.stats().memoryBudgetBytes();

        killAgent();
        for (int i = 0; i < 10; i++) {
            tick(LOOKUPS_PER_TICK);
        }
        assertThat(governor.agentState()).isEqualTo(AgentState.DOWN);
        assertThat(governor.stats().outcomes(Outcome.UNAVAILABLE)).isPositive();
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(budget);
        assertThat(verifyAll()).isEqualTo(KEYS);
        assertThat(wrongAnswers).isZero();

        startAgent("64m"); // same ledger: the grant survived the SIGKILL
        assertThat(agentGrantMb()).isEqualTo(budget / MIB);
        for (int i = 0; i < 20 && governor.agentState() != AgentState.UP; i++) {
            tick(LOOKUPS_PER_TICK);
        }
        assertThat(governor.agentState()).isEqualTo(AgentState.UP);
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** Grow fast for a test: 4 MiB steps after 2 ticks of pressure, quiet after 5 idle ticks, 1-tick cooldown. */
    private MemoryGovernor governor(GovernorConfig.Builder config) throws ScaleUpException {
        GovernorConfig c = config.interval(Duration.ofSeconds(1)).minBudgetBytes(2 * MIB).growStepBytes(4 * MIB)
                .shrinkStepBytes(4 * MIB).growMissRate(50).growAfterTicks(2).quietRequestRate(5)
                .shrinkAfter(Duration.ofSeconds(5)).cooldown(Duration.ofSeconds(1)).reserveBytes(MIB)
                .backoffInitial(Duration.ofSeconds(1)).backoffMax(Duration.ofSeconds(2)).build();
        ScaleUpClient client = new NativeScaleUpClient(socket, "store", Duration.ofSeconds(5));
        return new MemoryGovernor(store, client, c, now::get, ProcMemory.system());
    }

    /** scaleupd in a child JVM with a ledger under the test directory; returns once it answers. */
    private void startAgent(String pool) throws Exception {
        List<String> cmd = ChildJvm.command(ChildJvm.buildJvmFlags(), ScaleUpDaemonCommand.class,
                "--socket", socket.toString(), "--pool", pool, "--data", dir.resolve("agent").toString());
        agent = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                agentGrantMb();
                return;
            } catch (ScaleUpException e) {
                if (!agent.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("scaleupd did not come up: " + Files.readString(dir.resolve("agent.log")),
                            e);
                }
                Thread.sleep(50);
            }
        }
    }

    private void killAgent() throws InterruptedException {
        if (agent != null) {
            agent.destroyForcibly().waitFor();
            agent = null;
        }
    }

    /** The grant scaleupd holds for the store, asked through the pure-Java client (the other implementation). */
    private long agentGrantMb() throws ScaleUpException {
        try (SocketScaleUpClient c = new SocketScaleUpClient(socket, "store", Duration.ofSeconds(5))) {
            return c.status().grantedMb();
        }
    }

    /** Ticks {@code n} times under load; returns the hit ratio of those ticks' lookups. */
    private double tickWindow(int n) {
        long h = hits;
        long l = lookups;
        for (int i = 0; i < n; i++) {
            tick(LOOKUPS_PER_TICK);
        }
        return (double) (hits - h) / (lookups - l);
    }

    /** {@code n} random lookups (each answer checked), a second on the clock, a tick, the resize finished. */
    private GovernorDecision tick(int n) {
        for (int i = 0; i < n; i++) {
            int k = random.nextInt(KEYS);
            long before = store.stats().hits();
            byte[] v = store.get(NumberedStore.key(k));
            hits += store.stats().hits() - before;
            lookups++;
            if (!NumberedStore.matches(v, k, VALUE_SIZE)) {
                wrongAnswers++;
            }
        }
        now.addAndGet(SECOND);
        GovernorDecision d = governor.tick();
        settle();
        return d;
    }

    private long verifyAll() {
        long right = 0;
        for (int k = 0; k < KEYS; k++) {
            right += NumberedStore.matches(store.get(NumberedStore.key(k)), k, VALUE_SIZE) ? 1 : 0;
        }
        return right;
    }

    private void settle() {
        NumberedStore.settle(store);
    }
}
