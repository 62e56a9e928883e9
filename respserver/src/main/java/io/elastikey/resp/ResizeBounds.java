// ResizeBounds -- the sizes ELASTIC.RESIZE may set: the governor's minimum and maximum, and the machine's memory.
package io.elastikey.resp;

import io.elastikey.store.governor.GovernorConfig;
import io.elastikey.store.governor.GovernorPolicy;
import io.elastikey.store.governor.ProcMemory;

/**
 * What an administrator may resize the memory tier to over RESP. The rules are the ones the
 * {@link io.elastikey.store.governor.MemoryGovernor} keeps when it resizes on its own, from the
 * same {@link GovernorConfig}: never below {@link GovernorConfig#minBudgetBytes()} (so a stray
 * {@code ELASTIC.RESIZE 0} cannot empty the tier; emptying it is allowed only when the minimum is
 * configured as 0), never above {@link GovernorConfig#maxBudgetBytes()} (the most this server is
 * granted), and never beyond what the machine can spare
 * ({@link GovernorPolicy#machineCeiling}: the budget now plus {@code MemAvailable} minus
 * {@link GovernorConfig#reserveBytes()}), so a resize cannot run the process out of memory.
 * Thread-safe: {@code /proc} is read at each check.
 */
public final class ResizeBounds {
    private final long minBytes;
    private final long maxBytes;
    private final long reserveBytes;
    private final ProcMemory proc;

    private ResizeBounds(GovernorConfig config, ProcMemory proc) {
        this.minBytes = config.minBudgetBytes();
        this.maxBytes = config.maxBudgetBytes();
        this.reserveBytes = config.reserveBytes();
        this.proc = proc;
    }

    /** The bounds of {@code config}, against this machine's {@code /proc/meminfo}. */
    public static ResizeBounds of(GovernorConfig config) {
        return new ResizeBounds(config, ProcMemory.system());
    }

    /** The bounds of {@code config}, reading available memory from {@code proc} (tests hand in their own). */
    public static ResizeBounds of(GovernorConfig config, ProcMemory proc) {
        return new ResizeBounds(config, proc);
    }

    /** The governor's defaults: 64 MiB to 4 GiB, 512 MiB of the machine's memory kept free. */
    public static ResizeBounds defaults() {
        return of(GovernorConfig.builder().build());
    }

    public long minBytes() {
        return minBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Null when a store whose budget is {@code budget} may be resized to {@code target}; else why not. */
    String problem(long target, long budget) {
        if (target < minBytes) {
            return Sizes.format(target) + " is below the minimum budget of " + Sizes.format(minBytes)
                    + " (--resize-min)";
        }
        if (target > maxBytes) {
            return Sizes.format(target) + " is above the maximum budget of " + Sizes.format(maxBytes)
                    + " (--resize-max)";
        }
        long available = proc.availableBytes();
        long ceiling = GovernorPolicy.machineCeiling(budget, available, reserveBytes);
        if (target > budget && target > ceiling) {
            return Sizes.format(target) + " is more than the machine can spare: at most " + Sizes.format(ceiling)
                    + " (budget now " + Sizes.format(budget) + ", MemAvailable " + Sizes.format(available)
                    + ", reserve " + Sizes.format(reserveBytes) + ")";
        }
        return null;
    }

    @Override
    public String toString() {
        return "ResizeBounds{" + Sizes.format(minBytes) + " to " + Sizes.format(maxBytes) + ", reserve "
                + Sizes.format(reserveBytes) + "}";
    }
}
