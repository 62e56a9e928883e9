// MemoryGovernorTest -- the governor against a real ElasticStore and an in-test agent pool, ticked by hand.
package io.elastikey.store.governor;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResizeOperation;
import io.elastikey.store.governor.Decision.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class MemoryGovernorTest {

    private static final long MIB = 1L << 20;
    private static final long SECOND = 1_000_000_000L;
    private static final int KEYS = 2_000;
    private static final int VALUE_SIZE = 4_000;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final SplittableRandom random = new SplittableRandom(7);
    private ElasticStore store;
    private PoolClient agent;
    private MemoryGovernor governor;
    private Path meminfo;
    private long lookups;
    private long wrongAnswers;

    /** min 1 MiB, max 16 MiB, steps of 2 MiB, 2 ticks of 100 misses/s, quiet 5 s under 5 lookups/s, cooldown 2 s. */
    private static GovernorConfig.Builder config() {
        return GovernorConfig.builder().interval(Duration.ofSeconds(1)).minBudgetBytes(MIB).maxBudgetBytes(16 * MIB)
                .growStepBytes(2 * MIB).shrinkStepBytes(2 * MIB).growMissRate(100).growAfterTicks(2)
                .quietRequestRate(5).shrinkAfter(Duration.ofSeconds(5)).cooldown(Duration.ofSeconds(2))
                .reserveBytes(512 * MIB).backoffInitial(Duration.ofSeconds(1)).backoffMax(Duration.ofSeconds(4));
    }

    @BeforeEach
    void openStore() throws Exception {
        store = NumberedStore.open(dir.resolve("store"), MIB, KEYS, VALUE_SIZE);
        Path status = Files.writeString(dir.resolve("status"), "VmRSS:\t 300000 kB\n");
        meminfo = dir.resolve("meminfo");
        setAvailable(16L << 30);
        agent = new PoolClient(64);
    }

    @AfterEach
    void close() {
        if (governor != null) {
            governor.close();
        }
        store.close();
    }

    private MemoryGovernor governor(GovernorConfig config) {
        governor = new MemoryGovernor(store, agent, config, now::get,
                new ProcMemory(dir.resolve("status"), meminfo));
        return governor;
    }

    // ---- growing ------------------------------------------------------------------------------

    @Test
    void growsStepByStepUnderMissesUntilEveryEntryIsInMemory() {
        governor(config().growMissRate(20).build()); // 400 lookups a tick still miss 20/s at 90% hits
        GovernorDecision first = tick(400);
        assertThat(first.kind()).isEqualTo(Kind.SYNC); // first contact: the agent learns the 1 MiB budget
        assertThat(agent.grantedMb).isEqualTo(1);
        assertThat(governor.agentState()).isEqualTo(AgentState.UP);

        List<Long> budgets = new ArrayList<>();
        for (int i = 0; i < 40 && store.stats().memoryEntries() < KEYS; i++) {
            GovernorDecision d = tick(400);
            if (d.kind() == Kind.GROW) {
                assertThat(d.outcome()).isEqualTo(Outcome.GRANTED);
                budgets.add(store.stats().memoryBudgetBytes() / MIB);
                assertThat(store.stats().memoryBudgetBytes()).isEqualTo(agent.grantedMb * MIB);
            }
        }
        // 2,000 entries of about 4 KB need 7.8 MiB; the last step stops at that plus 5%.
        assertThat(budgets).containsExactly(3L, 5L, 7L, 9L);
        assertThat(store.stats().memoryEntries()).isEqualTo(KEYS);
        assertThat(agent.freeMb).isEqualTo(64 - 9);
        for (int i = 0; i < 10; i++) {
            assertThat(tick(400).kind()).isEqualTo(Kind.HOLD); // nothing misses any more
        }
        assertThat(governor.lastDecision().signals().hitRatio()).isEqualTo(1.0);
        assertThat(wrongAnswers).isZero();
        GovernorStats stats = governor.stats();
        assertThat(stats.decisions(Kind.GROW)).isEqualTo(4);
        assertThat(stats.decisions(Kind.SYNC)).isEqualTo(1);
        assertThat(stats.outcomes(Outcome.GRANTED)).isEqualTo(5);
        assertThat(stats.grantedMb()).isEqualTo(9);
        assertThat(stats.budgetBytes()).isEqualTo(9 * MIB);
    }

    @Test
    void aPartialGrantIsAppliedAsGranted() {
        agent.freeMb = 2; // 1 MiB for the sync, 1 of the 2 asked for the grow
        governor(config().build());
        tick(400);
        GovernorDecision grow = tickUntil(Kind.GROW);
        assertThat(grow.outcome()).isEqualTo(Outcome.PARTIAL);
        assertThat(grow.targetBytes()).isEqualTo(3 * MIB);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(2 * MIB);
        assertThat(agent.grantedMb).isEqualTo(2);
        assertThat(wrongAnswers).isZero();
    }

    @Test
    void aDenialKeepsTheBudget() {
        agent.freeMb = 1;
        governor(config().cooldown(Duration.ofSeconds(5)).build());
        tick(400);
        ResizeOperation before = store.lastResize();
        GovernorDecision grow = tickUntil(Kind.GROW);
        assertThat(grow.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.lastResize()).isSameAs(before);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(MIB);
        // The cooldown keeps it from asking again at once.
        long calls = agent.callCount();
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            reasons.add(tick(400).reason());
        }
        assertThat(agent.callCount()).isEqualTo(calls);
        assertThat(reasons).anyMatch(r -> r.contains("cooling down"));
        assertThat(tick(400).outcome()).isEqualTo(Outcome.DENIED); // and asks again after it
        assertThat(wrongAnswers).isZero();
    }

    @Test
    void anAgentErrorKeepsTheBudget() {
        governor(config().build());
        tick(400);
        agent.answerError = true;
        GovernorDecision grow = tickUntil(Kind.GROW);
        assertThat(grow.outcome()).isEqualTo(Outcome.ERROR);
        assertThat(grow.reason()).contains("actuator failed");
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(MIB);
        assertThat(governor.agentState()).isEqualTo(AgentState.UP);
    }

    @Test
    void growNeverTakesTheMachinesReserve() throws IOException {
        setAvailable(512 * MIB + 1 * MIB); // 1 MiB above the reserve
        governor(config().build());
        tick(400);
        GovernorDecision grow = tickUntil(Kind.GROW);
        assertThat(grow.targetBytes()).isEqualTo(2 * MIB);
        setAvailable(500 * MIB);
        GovernorDecision d = tickUntil(Kind.SHRINK);
        assertThat(d.reason()).contains("machine short of memory");
        assertThat(d.targetBytes()).isEqualTo(MIB);
    }

    // ---- shrinking ------------------------------------------------------------------------------

    @Test
    void aQuietStoreShrinksFirstAndGivesTheMemoryBackAfter() {
        governor(config().build());
        tick(400);
        tickUntil(Kind.GROW);
        tickUntil(Kind.GROW); // 5 MiB
        assertThat(agent.grantedMb).isEqualTo(5);
        long freeBefore = agent.freeMb;

        GovernorDecision shrink = null;
        for (int i = 0; i < 20 && shrink == null; i++) {
            GovernorDecision d = tickNoSettle(0);
            if (d.kind() == Kind.SHRINK) {
                shrink = d;
            } else {
                settle();
            }
        }
        assertThat(shrink).isNotNull();
        assertThat(shrink.targetBytes()).isEqualTo(3 * MIB);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(3 * MIB);
        assertThat(agent.freeMb).isEqualTo(freeBefore); // nothing given back before the resize finished
        settle();
        GovernorDecision release = tick(0);
        assertThat(release.kind()).isEqualTo(Kind.SYNC);
        assertThat(release.reason()).startsWith("shrink: quiet");
        assertThat(agent.grantedMb).isEqualTo(3);
        assertThat(agent.freeMb).isEqualTo(freeBefore + 2);
        assertThat(agent.calls.get(agent.calls.size() - 1)).startsWith("rescale 3 (sync: shrink: quiet");
    }

    @Test
    void shrinkingStopsAtTheMinimum() {
        governor(config().minBudgetBytes(3 * MIB).build());
        tick(0);
        settle();
        for (int i = 0; i < 30; i++) {
            tick(0);
        }
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(3 * MIB);
        assertThat(agent.grantedMb).isEqualTo(3);
        assertThat(governor.lastDecision().reason()).isEqualTo("quiet, at the minimum");
    }

    @Test
    void closeGivesTheGrantBackAndClosesTheClient() {
        governor(config().build());
        tick(400);
        tickUntil(Kind.GROW);
        governor.close();
        assertThat(agent.grantedMb).isZero();
        assertThat(agent.freeMb).isEqualTo(64);
        assertThat(agent.closed).isTrue();
        governor.close(); // idempotent
        assertThat(agent.calls.stream().filter(c -> c.equals("release"))).hasSize(1);
    }

    // ---- an absent or failing agent ---------------------------------------------------------------

    @Test
    void anAbsentAgentIsRetriedWithBackoffAndTheStoreKeepsServing() {
        ListAppender<ILoggingEvent> log = captureLog();
        agent.failWith = ScaleUpException.Reason.NO_AGENT;
        governor(config().build());
        List<Long> callsAt = new ArrayList<>();
        for (int t = 0; t < 12; t++) {
            long before = agent.callCount();
            GovernorDecision d = tick(400);
            assertThat(d.kind()).isEqualTo(Kind.HOLD);
            assertThat(d.reason()).contains("agent unavailable (NO_AGENT");
            if (agent.callCount() > before) {
                callsAt.add((long) t);
            }
        }
        // Tries at 0, then after 1, 2, 4, 4 s (capped).
        assertThat(callsAt).containsExactly(0L, 1L, 3L, 7L, 11L);
        assertThat(governor.agentState()).isEqualTo(AgentState.DOWN);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(MIB);
        assertThat(governor.stats().agentFailures()).isEqualTo(5);
        assertThat(warnings(log, "scale-up agent unavailable")).isEqualTo(1); // once, not per tick

        agent.failWith = null;
        for (int i = 0; i < 4; i++) {
            tick(400); // the next try (at most 4 s away) finds it
        }
        assertThat(governor.agentState()).isEqualTo(AgentState.UP);
        GovernorDecision grow = tickUntil(Kind.GROW);
        assertThat(grow.outcome()).isEqualTo(Outcome.GRANTED);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(3 * MIB);
        assertThat(infos(log, "reachable")).isEqualTo(1);
        assertThat(wrongAnswers).isZero();
        assertThat(lookups).isGreaterThan(5_000);
    }

    @Test
    void anAgentThatDiesMidGrowLeavesTheBudgetAlone() {
        governor(config().build());
        tick(400);
        tickNoSettle(400); // first tick under pressure
        agent.failWith = ScaleUpException.Reason.TIMEOUT;
        GovernorDecision d = tick(400);
        assertThat(d.kind()).isEqualTo(Kind.GROW);
        assertThat(d.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(governor.agentState()).isEqualTo(AgentState.DOWN);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(MIB);
        assertThat(governor.stats().outcomes(Outcome.UNAVAILABLE)).isEqualTo(1);
        agent.failWith = null;
        settleTicks(2);
        assertThat(governor.agentState()).isEqualTo(AgentState.UP);
        assertThat(wrongAnswers).isZero();
    }

    @Test
    void aShrinkWhoseReleaseFailsIsGivenBackWhenTheAgentReturns() {
        governor(config().build());
        tick(400);
        tickUntil(Kind.GROW); // 3 MiB
        GovernorDecision shrink = null;
        for (int i = 0; i < 20 && shrink == null; i++) {
            GovernorDecision d = tick(0);
            shrink = d.kind() == Kind.SHRINK ? d : null;
        }
        assertThat(shrink).isNotNull();
        agent.failWith = ScaleUpException.Reason.IO;
        GovernorDecision failed = tick(0);
        assertThat(failed.kind()).isEqualTo(Kind.SYNC);
        assertThat(failed.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(agent.grantedMb).isEqualTo(3); // the process holds less than granted: safe
        agent.failWith = null;
        for (int i = 0; i < 3; i++) {
            tick(0);
        }
        assertThat(agent.grantedMb).isEqualTo(1);
        assertThat(store.stats().memoryBudgetBytes()).isEqualTo(MIB);
    }

    @Test
    void theThreadTicksOnItsOwn() throws Exception {
        governor(config().interval(Duration.ofMillis(10)).build());
        governor.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (governor.stats().ticks() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        governor.stop();
        assertThat(governor.stats().ticks()).isGreaterThanOrEqualTo(3);
        assertThat(governor.agentState()).isEqualTo(AgentState.UP);
    }

    // ---- helpers ------------------------------------------------------------------------------------

    /** Runs {@code n} random lookups (checking each answer), advances the ticker a second, ticks, settles. */
    private GovernorDecision tick(int n) {
        GovernorDecision d = tickNoSettle(n);
        settle();
        return d;
    }

    private GovernorDecision tickNoSettle(int n) {
        for (int i = 0; i < n; i++) {
            int k = random.nextInt(KEYS);
            byte[] v = store.get(NumberedStore.key(k));
            lookups++;
            if (!NumberedStore.matches(v, k, VALUE_SIZE)) {
                wrongAnswers++;
            }
        }
        now.addAndGet(SECOND);
        return governor.tick();
    }

    private GovernorDecision tickUntil(Kind kind) {
        for (int i = 0; i < 20; i++) {
            GovernorDecision d = tick(400);
            if (d.kind() == kind) {
                return d;
            }
        }
        throw new AssertionError("no " + kind + " in 20 ticks; last: " + governor.lastDecision().logLine());
    }

    private void settleTicks(int n) {
        for (int i = 0; i < n; i++) {
            tick(400);
        }
    }

    private void settle() {
        NumberedStore.settle(store);
    }

    private void setAvailable(long bytes) throws IOException {
        Files.writeString(meminfo, "MemTotal: 25000000 kB\nMemAvailable: " + (bytes >> 10) + " kB\n");
    }

    private static ListAppender<ILoggingEvent> captureLog() {
        Logger logger = (Logger) LoggerFactory.getLogger(MemoryGovernor.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        return appender;
    }

    private static long warnings(ListAppender<ILoggingEvent> log, String text) {
        return log.list.stream().filter(e -> e.getLevel() == Level.WARN && e.getFormattedMessage().contains(text))
                .count();
    }

    private static long infos(ListAppender<ILoggingEvent> log, String text) {
        return log.list.stream().filter(e -> e.getLevel() == Level.INFO && e.getFormattedMessage().contains(text))
                .count();
    }
}
