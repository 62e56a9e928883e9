// MemoryTierSizing -- how big a store's memory tier may be when no budget is given: 1 GB, or what fits under a cgroup limit.
package io.elastikey.store.memory;

import java.util.OptionalLong;

/**
 * The memory budget of a store started without one. With no memory limit it is {@link #UNLIMITED_BUDGET} (the
 * budget {@code store serve} always had). Under a cgroup limit the kernel charges the whole process to that limit:
 * the Java heap, the memory tier (off-heap), direct buffers, the JVM's own memory (metaspace, code, thread stacks, GC
 * tables) and the page cache that the log's writes and reads and the mapped index leave behind. So the tier gets
 * {@link #TIER_SHARE} of what is left of the limit after the heap's maximum and {@link #NON_HEAP_RESERVE}; the other
 * share is room for the page cache, which the kernel reclaims under the limit (clean pages first) before it would
 * OOM-kill: with that room it reclaims cache instead of failing to charge the tier's anonymous pages.
 *
 * <p>Example: a 512 MiB cgroup, whose JVM takes a 128 MiB heap (25%, the JVM is cgroup-aware), gives the tier
 * (512 - 128 - 128) / 2 = 128 MiB. A limit too small for the reserve gives 0: every read goes to disk, which is slow
 * but alive. Measured figures are in docs/store.md ("Memory limits the kernel enforces").
 */
public final class MemoryTierSizing {

    /** The budget with no memory limit: 1 GiB. */
    public static final long UNLIMITED_BUDGET = 1L << 30;

    /** Memory the process needs beyond the heap and the tier: JVM internals, direct buffers, Netty's pools. */
    public static final long NON_HEAP_RESERVE = 128L << 20;

    /** The tier's share of the limit left after the heap and the reserve; the rest is left to the page cache. */
    public static final double TIER_SHARE = 0.5;

    /**
     * The tier's share when lookups read past the page cache ({@code O_DIRECT}): the page cache then holds the
     * mapped index and the log's recent writes, not every record a miss read, so the tier may take more.
     */
    public static final double DIRECT_READS_TIER_SHARE = 0.7;

    private MemoryTierSizing() {
    }

    /**
     * @param limitBytes   the binding memory limit ({@link CgroupLimit#limitBytes()}), or empty for none
     * @param maxHeapBytes the heap's maximum ({@link Runtime#maxMemory()})
     * @return the memory tier's budget in bytes, a whole number of MiB
     */
    public static long budget(OptionalLong limitBytes, long maxHeapBytes) {
        return budget(limitBytes, maxHeapBytes, false);
    }

    /** As {@link #budget(OptionalLong, long)}, for a store whose lookups read past the page cache or not. */
    public static long budget(OptionalLong limitBytes, long maxHeapBytes, boolean directReads) {
        if (limitBytes.isEmpty()) {
            return UNLIMITED_BUDGET;
        }
        long left = limitBytes.getAsLong() - Math.max(0, maxHeapBytes) - NON_HEAP_RESERVE;
        if (left <= 0) {
            return 0;
        }
        long tier = (long) (left * (directReads ? DIRECT_READS_TIER_SHARE : TIER_SHARE));
        return tier >> 20 << 20;
    }

    /** The budget for this process: its cgroup's limit and this JVM's heap. */
    public static long forThisProcess(boolean directReads) {
        return budget(CgroupLimit.system().limitBytes(), Runtime.getRuntime().maxMemory(), directReads);
    }
}
