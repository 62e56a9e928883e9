// MemoryGovernor -- grows and shrinks an ElasticStore's memory budget through the scale-up agent.
package io.elastikey.store.governor;

import io.elastikey.scaleup.GiveBackRequest;
import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.socket.GiveBackWatch;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResizeOperation;
import java.time.Duration;
import io.elastikey.store.governor.Decision.Kind;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks for memory at peak load and gives it back after, the way the reference platform lends a VM
 * RAM (D2.6 sections 6.1.2 and 7): the store's in-memory tier grows when misses are frequent and
 * memory would answer them, and shrinks after a long quiet spell.
 *
 * <h2>One tick</h2>
 * Every {@link GovernorConfig#interval()} one daemon thread calls {@link #tick()}, which
 * <ol>
 *   <li>samples {@link Signals} ({@link SignalSampler}: the store's counters, {@code /proc});
 *   <li>if the agent was never reached or is backing off, tries it ({@code status}) when the
 *       backoff has passed, and otherwise holds: the store keeps serving with the budget it has;
 *   <li>if the agent's grant differs from the store's budget (at first contact, after a shrink,
 *       after a failed resize), aligns them: a {@link Kind#SYNC};
 *   <li>otherwise asks the {@link GovernorPolicy} and acts on its decision. A grow asks the agent
 *       for the new total ({@link ScaleUpClient#rescale}) and resizes the store to what was granted
 *       (all, part, or nothing on a denial). A shrink resizes the store first and gives the memory
 *       back on the first tick after the resize finished, so the budget never exceeds the grant.
 * </ol>
 * <h2>When the agent asks for memory back</h2>
 * {@link #start()} also opens a {@link GiveBackWatch} on the agent's socket. A give-back request
 * (the agent's pool shrank, or another client needs its fair share) is handled at once on the
 * ticking thread, before anything else: the store resizes down to what is asked, waits for the
 * resize (up to three quarters of the agent's deadline), and only then rescales down, which is
 * the acknowledgement and what lets the agent lower the cgroup limit. Shrink first, limit after:
 * the kernel limit never drops below what the store uses. Until the agent grants a grow again,
 * the governor treats what it gave back as its minimum, so it does not grow straight back.
 *
 * <p>A call without answer ({@link ScaleUpException}) marks the agent down and starts an exponential
 * backoff ({@link GovernorConfig#backoffInitial()} doubling up to {@link GovernorConfig#backoffMax()});
 * the transition is logged once, not every tick. Every change is logged in one INFO line
 * ({@link GovernorDecision#logLine()}); holds go to DEBUG. {@link #stats()} and {@link #lastDecision()}
 * expose the rest.
 *
 * <h2>What a grant covers</h2>
 * The grant is the memory tier's budget, in whole MiB. The minimum budget is kept even when the
 * agent grants less (the store needs it to meet its lookup targets). A resize holds the old and new
 * tables at once for a moment, so the process briefly uses up to the sum of both.
 *
 * <p>Tests drive {@link #tick()} themselves with their own ticker instead of {@link #start()}.
 * Thread-safe: ticks are serialized, {@link #stats()} reads a snapshot.
 */
public final class MemoryGovernor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryGovernor.class);
    private static final long MIB = 1L << 20;

    private final ElasticStore store;
    private final ScaleUpClient client;
    private final GovernorConfig config;
    private final GovernorPolicy policy;
    private final SignalSampler sampler;
    private final LongSupplier ticker;
    private final Object tickLock = new Object();

    // Guarded by tickLock.
    private Decision.State policyState = Decision.State.INITIAL;
    private long backoffNanos;
    private long nextAttemptNanos;
    private long nextSyncNanos;
    private String pendingRelease;
    private String lastFailure = "";
    private boolean closed;

    private volatile AgentState agentState = AgentState.UNKNOWN;
    private volatile long grantedMb = -1;
    private volatile GovernorDecision last;
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicLong agentFailures = new AtomicLong();
    private final AtomicLongArray decisions = new AtomicLongArray(Kind.values().length);
    private final AtomicLongArray outcomes = new AtomicLongArray(Outcome.values().length);

    private volatile ScheduledExecutorService thread;
    private GiveBackWatch watch;
    private final AtomicReference<GiveBackRequest> pendingGiveBack = new AtomicReference<>();
    /** Guarded by tickLock: the budget the agent last asked to come down to; MAX_VALUE when none holds. */
    private long giveBackCeilingBytes = Long.MAX_VALUE;
    private final AtomicLong giveBacks = new AtomicLong();

    /** A governor of {@code store} on the real clock and {@code /proc}; it owns {@code client}. */
    public MemoryGovernor(ElasticStore store, ScaleUpClient client, GovernorConfig config) {
        this(store, client, config, System::nanoTime, ProcMemory.system());
    }

    /**
     * @param ticker nanosecond time source for rates and backoff (tests pass their own)
     * @param proc where resident and available memory are read
     */
    public MemoryGovernor(ElasticStore store, ScaleUpClient client, GovernorConfig config, LongSupplier ticker,
                          ProcMemory proc) {
        this.store = store;
        this.client = client;
        this.config = config;
        this.policy = new GovernorPolicy(config);
        this.sampler = new SignalSampler(store, proc);
        this.ticker = ticker;
    }

    // ---- lifecycle --------------------------------------------------------------------------

    /** Starts the ticking thread; returns this. */
    public synchronized MemoryGovernor start() {
        if (thread != null) {
            return this;
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "memory-governor");
            t.setDaemon(true);
            return t;
        });
        long every = config.interval().toNanos();
        thread.scheduleWithFixedDelay(this::tickQuietly, every, every, TimeUnit.NANOSECONDS);
        listenToAgent();
        LOG.info("memory governor started for {} through {} (client '{}'): {}", store,
                client.getClass().getSimpleName(), client.clientName(), config);
        return this;
    }

    /**
     * Opens the watch on the agent's socket for give-back requests (see the class comment); {@link #start()} calls
     * it. Tests that drive {@link #tick()} themselves call it to hear the agent; each request then waits for their
     * next tick. Does nothing when the client names no socket. Returns this.
     */
    public synchronized MemoryGovernor listenToAgent() {
        if (watch == null && client.socketPath() != null) {
            watch = GiveBackWatch.start(client.socketPath(), client.clientName(), this::giveBackRequested,
                    Duration.ofSeconds(1));
        }
        return this;
    }

    /** Whether the watch for the agent's give-back requests is connected and answered. */
    public boolean listening() {
        GiveBackWatch w = watch;
        return w != null && w.watching();
    }

    /**
     * The agent asks for memory back: kept (the lowest target wins if several come before a tick) and handled by
     * the next tick, which the ticking thread runs at once.
     */
    public void giveBackRequested(GiveBackRequest request) {
        pendingGiveBack.accumulateAndGet(request, (held, fresh) -> held == null || fresh.memoryMb() <= held.memoryMb()
                ? fresh : held);
        LOG.info("scale-up agent asks client '{}' to come down to {} MiB within {} ms: {}", request.client(),
                request.memoryMb(), request.deadlineMs(), request.reason());
        ScheduledExecutorService t = thread;
        if (t != null) {
            try {
                t.execute(this::tickQuietly);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // stopped meanwhile: the agent lowers the grant at its deadline
            }
        }
    }

    /** Stops the ticking thread after the tick in progress, if any, and the watch. The grant is kept. */
    public synchronized void stop() {
        if (watch != null) {
            watch.close();
            watch = null;
        }
        if (thread == null) {
            return;
        }
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("memory governor tick still running after 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread = null;
    }

    /**
     * Stops, gives the grant back when {@link GovernorConfig#releaseOnClose()} (the owner closes the
     * store next) and closes the client. Idempotent.
     */
    @Override
    public void close() {
        stop();
        synchronized (tickLock) {
            if (closed) {
                return;
            }
            closed = true;
            if (config.releaseOnClose() && agentState == AgentState.UP && grantedMb > 0) {
                try {
                    ScaleUpResponse r = client.release();
                    grantedMb = r.grantedMb();
                    LOG.info("memory governor released its grant: {} MiB left, pool {} MiB free", r.grantedMb(),
                            r.poolFreeMb());
                } catch (ScaleUpException e) {
                    LOG.warn("memory governor could not release its grant of {} MiB: {} ({})", grantedMb,
                            e.getMessage(), e.reason());
                }
            }
            client.close();
        }
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("memory governor tick failed; the next tick tries again", e);
        }
    }

    // ---- one tick -----------------------------------------------------------------------------

    /** Samples, decides and acts once; returns what happened. The thread calls it every interval. */
    public GovernorDecision tick() {
        synchronized (tickLock) {
            if (closed) {
                throw new IllegalStateException("memory governor is closed");
            }
            long now = ticker.getAsLong();
            Signals s = sampler.sample(now);
            GovernorDecision d = step(s, now);
            record(d);
            return d;
        }
    }

    private GovernorDecision step(Signals s, long now) {
        if (agentState != AgentState.UP) {
            if (agentState == AgentState.DOWN && now - nextAttemptNanos < 0) {
                return hold(s, String.format(java.util.Locale.ROOT, "agent unavailable (%s), next try in %.1f s",
                        lastFailure, (nextAttemptNanos - now) / 1e9));
            }
            try {
                ScaleUpResponse r = client.status();
                agentUp(r);
            } catch (ScaleUpException e) {
                agentDown(e, now);
                return done(s, Kind.HOLD, s.budgetBytes(), "agent unavailable (" + lastFailure + ")",
                        Outcome.UNAVAILABLE, s.budgetBytes());
            }
        }
        GiveBackRequest asked = pendingGiveBack.getAndSet(null);
        if (asked != null) {
            return giveBack(s, asked, now);
        }
        if (!s.resizing() && grantedMb != ceilMb(s.budgetBytes()) && now - nextSyncNanos >= 0) {
            return sync(s, now);
        }
        Decision d = policy.decide(s, policyState, floorBytes());
        policyState = d.next();
        return switch (d.kind()) {
            case GROW -> grow(s, d, now);
            case SHRINK -> shrink(s, d);
            default -> hold(s, d.reason());
        };
    }

    /**
     * The agent asked for memory back: resize down first, then rescale down (the acknowledgement). If the resize does
     * not finish in three quarters of the agent's deadline, the governor does not acknowledge: the agent lowers the
     * grant at the deadline and the next tick's sync follows it.
     */
    private GovernorDecision giveBack(Signals s, GiveBackRequest asked, long now) {
        giveBacks.incrementAndGet();
        long target = asked.memoryMb() * MIB;
        long budget = s.budgetBytes();
        giveBackCeilingBytes = target;
        String reason = "the agent asks for " + asked.memoryMb() + " MiB: " + asked.reason();
        if (budget > target || s.resizing()) {
            ResizeOperation op = store.resize(Math.min(budget, target));
            try {
                ResizeOperation.State state = op.await(Math.max(1, asked.deadlineMs() * 3 / 4), TimeUnit.MILLISECONDS);
                if (state != ResizeOperation.State.DONE) {
                    return done(s, Kind.GIVE_BACK, target, reason + "; resize " + state + ", not acknowledged",
                            Outcome.NONE, budget);
                }
            } catch (TimeoutException e) {
                return done(s, Kind.GIVE_BACK, target, reason + "; resize not done in time, not acknowledged",
                        Outcome.NONE, target);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return done(s, Kind.GIVE_BACK, target, reason + "; interrupted", Outcome.NONE, target);
            }
        }
        long next = Math.min(budget, target);
        ScaleUpResponse r;
        try {
            r = client.rescale(asked.memoryMb(), "give back: " + asked.reason());
        } catch (ScaleUpException e) {
            agentDown(e, now);
            return done(s, Kind.GIVE_BACK, target, reason, Outcome.UNAVAILABLE, next);
        }
        Outcome outcome = outcomeOf(r);
        if (outcome != Outcome.ERROR) {
            grantedMb = r.grantedMb();
        } else {
            reason += "; agent: " + r.message();
        }
        return done(s, Kind.GIVE_BACK, target, reason, outcome, next);
    }

    /** The smallest budget the governor keeps: its minimum, or less while the agent wants memory back. */
    private long floorBytes() {
        return Math.min(config.minBudgetBytes(), giveBackCeilingBytes);
    }

    /** Asks for the target, then resizes to what was granted. */
    private GovernorDecision grow(Signals s, Decision d, long now) {
        long budget = s.budgetBytes();
        ScaleUpResponse r;
        try {
            r = client.rescale(d.targetBytes() / MIB, "grow: " + d.reason());
        } catch (ScaleUpException e) {
            agentDown(e, now);
            return done(s, Kind.GROW, d.targetBytes(), d.reason(), Outcome.UNAVAILABLE, budget);
        }
        Outcome outcome = outcomeOf(r);
        if (outcome == Outcome.ERROR) {
            return done(s, Kind.GROW, d.targetBytes(), d.reason() + "; agent: " + r.message(), outcome, budget);
        }
        grantedMb = r.grantedMb();
        if (r.grantedMb() * MIB > giveBackCeilingBytes) {
            giveBackCeilingBytes = Long.MAX_VALUE; // the agent lends again: the minimum holds again
        }
        long next = Math.max(floorBytes(), Math.min(r.grantedMb() * MIB, d.targetBytes()));
        if (next != budget) {
            store.resize(next);
        }
        return done(s, Kind.GROW, d.targetBytes(), d.reason(), outcome, next);
    }

    /** Resizes down now; a later tick's sync gives the memory back once the resize is done. */
    private GovernorDecision shrink(Signals s, Decision d) {
        store.resize(d.targetBytes());
        pendingRelease = "shrink: " + d.reason();
        return done(s, Kind.SHRINK, d.targetBytes(), d.reason() + "; memory given back after the resize",
                Outcome.NONE, d.targetBytes());
    }

    /**
     * Aligns the grant with the budget: gives back what the store no longer uses, or asks for
     * what it uses (clamped to the bounds) and resizes down to the grant when the agent gives less.
     */
    private GovernorDecision sync(Signals s, long now) {
        long budget = s.budgetBytes();
        long wantMb = ceilMb(Math.max(floorBytes(), Math.min(budget, config.maxBudgetBytes())));
        String reason = pendingRelease != null ? pendingRelease
                : grantedMb > ceilMb(budget) ? "give back what the store does not use"
                : "cover the store's budget";
        pendingRelease = null;
        ScaleUpResponse r;
        try {
            r = client.rescale(wantMb, "sync: " + reason);
        } catch (ScaleUpException e) {
            agentDown(e, now);
            return done(s, Kind.SYNC, wantMb * MIB, reason, Outcome.UNAVAILABLE, budget);
        }
        Outcome outcome = outcomeOf(r);
        long next = budget;
        if (outcome != Outcome.ERROR) {
            grantedMb = r.grantedMb();
            if (grantedMb * MIB < budget) {
                next = Math.max(floorBytes(), grantedMb * MIB);
                if (next < budget) {
                    store.resize(next);
                }
            }
        } else {
            reason += "; agent: " + r.message();
        }
        if (outcome == Outcome.ERROR || grantedMb != ceilMb(next)) {
            nextSyncNanos = now + config.cooldown().toNanos(); // do not ask again every tick
        }
        return done(s, Kind.SYNC, wantMb * MIB, reason, outcome, next);
    }

    // ---- agent state ----------------------------------------------------------------------------

    private void agentUp(ScaleUpResponse status) {
        grantedMb = status.grantedMb();
        if (agentState != AgentState.UP) {
            LOG.info("scale-up agent {} for client '{}': grant {} MiB, pool {} MiB free",
                    agentState == AgentState.DOWN ? "reachable again" : "reachable", client.clientName(),
                    status.grantedMb(), status.poolFreeMb());
        }
        agentState = AgentState.UP;
        backoffNanos = 0;
    }

    private void agentDown(ScaleUpException e, long now) {
        agentFailures.incrementAndGet();
        lastFailure = e.reason() + ": " + e.getMessage();
        if (agentState != AgentState.DOWN) {
            backoffNanos = config.backoffInitial().toNanos();
            LOG.warn("scale-up agent unavailable ({}); the store keeps its budget, retrying with backoff up to {}",
                    lastFailure, config.backoffMax());
        } else {
            backoffNanos = Math.min(backoffNanos * 2, config.backoffMax().toNanos());
            LOG.debug("scale-up agent still unavailable ({}); next try in {} ms", lastFailure, backoffNanos / 1_000_000);
        }
        agentState = AgentState.DOWN;
        nextAttemptNanos = now + backoffNanos;
    }

    // ---- bookkeeping ------------------------------------------------------------------------------

    private GovernorDecision hold(Signals s, String reason) {
        return done(s, Kind.HOLD, s.budgetBytes(), reason, Outcome.NONE, s.budgetBytes());
    }

    private GovernorDecision done(Signals s, Kind kind, long target, String reason, Outcome outcome, long budget) {
        return new GovernorDecision(s, kind, target, reason, outcome, grantedMb, budget);
    }

    private void record(GovernorDecision d) {
        ticks.incrementAndGet();
        decisions.incrementAndGet(d.kind().ordinal());
        outcomes.incrementAndGet(d.outcome().ordinal());
        last = d;
        if (d.kind() != Kind.HOLD) {
            LOG.info("{}", d.logLine());
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("{}", d.logLine());
        }
    }

    private static Outcome outcomeOf(ScaleUpResponse r) {
        return switch (r.status()) {
            case GRANTED -> Outcome.GRANTED;
            case PARTIAL -> Outcome.PARTIAL;
            case DENIED -> Outcome.DENIED;
            case ERROR -> Outcome.ERROR;
        };
    }

    private static long ceilMb(long bytes) {
        return (bytes + MIB - 1) / MIB;
    }

    // ---- views ---------------------------------------------------------------------------------------

    /** Give-back requests from the agent handled so far. */
    public long giveBacks() {
        return giveBacks.get();
    }

    /** The latest tick, or {@code null} before the first. */
    public GovernorDecision lastDecision() {
        return last;
    }

    public AgentState agentState() {
        return agentState;
    }

    /** The agent's grant as last seen, in MiB; -1 before the first answer. */
    public long grantedMb() {
        return grantedMb;
    }

    public GovernorConfig config() {
        return config;
    }

    public ScaleUpClient client() {
        return client;
    }

    /** A snapshot of the counters and state. */
    public GovernorStats stats() {
        Map<Kind, Long> byKind = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            byKind.put(k, decisions.get(k.ordinal()));
        }
        Map<Outcome, Long> byOutcome = new EnumMap<>(Outcome.class);
        for (Outcome o : Outcome.values()) {
            byOutcome.put(o, outcomes.get(o.ordinal()));
        }
        GovernorDecision d = last;
        long budget = d != null ? d.budgetBytes() : store.stats().memoryBudgetBytes();
        return new GovernorStats(agentState, grantedMb, budget, ticks.get(), Map.copyOf(byKind),
                Map.copyOf(byOutcome), agentFailures.get(), d);
    }

    @Override
    public String toString() {
        return "MemoryGovernor{" + store + ", agent " + agentState + ", grant " + grantedMb + " MiB}";
    }
}
