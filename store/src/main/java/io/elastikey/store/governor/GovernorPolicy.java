// GovernorPolicy -- decides the memory budget from one tick's signals, with hysteresis.
package io.elastikey.store.governor;

import io.elastikey.store.governor.Decision.Kind;
import io.elastikey.store.governor.Decision.State;
import java.util.Locale;

/**
 * A pure function from ({@link Signals}, {@link State}) to a {@link Decision}: no clock, no I/O,
 * no fields that change, so every case is a unit test. The rules, in the order they are checked:
 * <ol>
 *   <li>While a resize runs, hold (the signals describe the table being replaced).
 *   <li>Bounds: a budget below the minimum grows to it, one above the maximum shrinks to it.
 *   <li>The machine is short of memory ({@code MemAvailable} under the reserve): shrink a step.
 *   <li>Grow a step when the store has been under pressure for {@code growAfterTicks} consecutive
 *       ticks. Pressure is a miss rate of at least {@code growMissRate} for keys the store holds,
 *       while memory would raise the hit ratio: the tier is at least {@value #FULL} full and does
 *       not already hold every entry. A grow never goes past the maximum, past the size that holds
 *       every entry (plus {@value #HEADROOM} headroom), nor past what the machine can spare
 *       ({@code MemAvailable} minus the reserve).
 *   <li>Shrink a step when the store has been quiet (request rate at or below
 *       {@code quietRequestRate}, no pressure) for {@code shrinkAfter}; never below the minimum.
 *   <li>Otherwise hold.
 * </ol>
 * Every change starts a cooldown of {@code cooldown}, during which a change rules 2 to 5 want is
 * held back (the counters keep counting, so it happens when the cooldown ends).
 * Targets are whole MiB, the unit of grants.
 */
public final class GovernorPolicy {

    /** The tier counts as full from this share of its budget (the last entries may not fit whole). */
    static final double FULL = 0.9;
    /** A grow towards "every entry" asks this much more, for the table's own slack. */
    static final double HEADROOM = 0.05;
    static final long MIB = 1L << 20;

    private final GovernorConfig config;
    private final int shrinkAfterTicks;
    private final int cooldownTicks;

    public GovernorPolicy(GovernorConfig config) {
        this.config = config;
        this.shrinkAfterTicks = config.shrinkAfterTicks();
        this.cooldownTicks = config.cooldownTicks();
    }

    public Decision decide(Signals s, State state) {
        return decide(s, state, config.minBudgetBytes());
    }

    /**
     * As {@link #decide(Signals, State)} with {@code minBudgetBytes} in place of the configured minimum: after the
     * agent asked for memory back, the governor does not grow straight back to its minimum.
     */
    public Decision decide(Signals s, State state, long minBudgetBytes) {
        int cooldown = Math.max(0, state.cooldownTicks() - 1);
        long budget = s.budgetBytes();
        if (s.resizing()) {
            return hold(budget, "resize in progress", new State(state.pressureTicks(), state.quietTicks(), cooldown));
        }
        boolean helps = s.memoryEntries() < s.entries() && s.allEntriesBytes() > budget
                && s.memoryBytes() >= FULL * budget;
        boolean pressure = helps && s.missRate() >= config.growMissRate();
        boolean quiet = !pressure && s.requestRate() <= config.quietRequestRate();
        State counting = new State(pressure ? Math.min(state.pressureTicks() + 1, config.growAfterTicks()) : 0,
                quiet ? Math.min(state.quietTicks() + 1, shrinkAfterTicks) : 0, cooldown);
        Decision proposed = propose(s, counting, minBudgetBytes);
        if (proposed.kind() == Kind.HOLD) {
            return proposed;
        }
        if (cooldown > 0) {
            return hold(budget, proposed.reason() + "; cooling down (" + cooldown + " ticks left)", counting);
        }
        return proposed;
    }

    /** The decision ignoring the cooldown; a change carries the state that starts one. */
    private Decision propose(Signals s, State counting, long min) {
        long budget = s.budgetBytes();
        long max = config.maxBudgetBytes();
        boolean known = s.availableBytes() >= 0;
        long ceiling = machineCeiling(budget, s.availableBytes(), config.reserveBytes());
        State changed = new State(0, 0, cooldownTicks);

        if (budget < min) {
            long target = alignDown(Math.min(min, ceiling));
            return target > budget
                    ? new Decision(Kind.GROW, target, "below the minimum " + mib(min), changed)
                    : hold(budget, "below the minimum, but the machine has no memory to spare", counting);
        }
        if (budget > max) {
            return new Decision(Kind.SHRINK, max, "above the maximum " + mib(max), changed);
        }
        if (known && s.availableBytes() < config.reserveBytes() && budget > min) {
            return new Decision(Kind.SHRINK, shrinkTarget(budget, min), "machine short of memory: "
                    + mib(s.availableBytes()) + " available, reserve " + mib(config.reserveBytes()), changed);
        }
        if (counting.pressureTicks() >= config.growAfterTicks()) {
            String why = String.format(Locale.ROOT, "%.0f misses/s for %d ticks", s.missRate(),
                    counting.pressureTicks());
            if (budget >= max) {
                return hold(budget, why + ", at the maximum", counting);
            }
            long wanted = Math.min(budget + config.growStepBytes(), max);
            wanted = Math.min(wanted, alignUp((long) Math.ceil(s.allEntriesBytes() * (1 + HEADROOM))));
            long target = alignDown(Math.min(wanted, ceiling));
            if (target <= budget) {
                return hold(budget, why + ", but the machine has no memory to spare (" + mib(s.availableBytes())
                        + " available, reserve " + mib(config.reserveBytes()) + ")", counting);
            }
            return new Decision(Kind.GROW, target, why, changed);
        }
        if (counting.quietTicks() >= shrinkAfterTicks) {
            if (budget <= min) {
                return hold(budget, "quiet, at the minimum", counting);
            }
            return new Decision(Kind.SHRINK, shrinkTarget(budget, min), String.format(Locale.ROOT,
                    "quiet for %d ticks (%.0f lookups/s)", counting.quietTicks(), s.requestRate()), changed);
        }
        if (counting.pressureTicks() > 0) {
            return hold(budget, "under pressure (" + counting.pressureTicks() + "/" + config.growAfterTicks()
                    + " ticks)", counting);
        }
        if (counting.quietTicks() > 0) {
            return hold(budget, "quiet (" + counting.quietTicks() + "/" + shrinkAfterTicks + " ticks)", counting);
        }
        return hold(budget, "steady", counting);
    }

    /**
     * The largest budget the machine lets a store hold whose budget is {@code budget} now: that
     * budget plus what {@code MemAvailable} has beyond the reserve. {@code availableBytes} -1
     * (unknown) sets no limit. The one rule for "what the machine can spare": grows use it, and so
     * does the RESP server's {@code ELASTIC.RESIZE}.
     */
    public static long machineCeiling(long budget, long availableBytes, long reserveBytes) {
        if (availableBytes < 0) {
            return Long.MAX_VALUE;
        }
        long spare = Math.max(0, availableBytes - reserveBytes);
        return budget + Math.min(spare, Long.MAX_VALUE - budget);
    }

    private long shrinkTarget(long budget, long min) {
        return Math.max(min, alignUp(Math.max(0, budget - config.shrinkStepBytes())));
    }

    private static Decision hold(long budget, String reason, State next) {
        return new Decision(Kind.HOLD, budget, reason, next);
    }

    static long alignDown(long bytes) {
        return bytes / MIB * MIB;
    }

    static long alignUp(long bytes) {
        return bytes > Long.MAX_VALUE - MIB ? alignDown(bytes) : (bytes + MIB - 1) / MIB * MIB;
    }

    private static String mib(long bytes) {
        return Signals.mib(bytes);
    }
}
