// MemoryTierSizingTest -- the default budget: 1 GiB with no limit, a share of what a cgroup limit leaves otherwise.
package io.elastikey.store.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class MemoryTierSizingTest {

    private static final long MIB = 1L << 20;

    @Test
    void noLimitKeepsTheOneGibDefault() {
        assertEquals(1024 * MIB, MemoryTierSizing.budget(OptionalLong.empty(), 4096 * MIB));
    }

    @Test
    void halfOfWhatTheHeapAndReserveLeave() {
        // 512 MiB cgroup, the JVM's 25% heap: (512 - 128 - 128) / 2
        assertEquals(128 * MIB, MemoryTierSizing.budget(OptionalLong.of(512 * MIB), 128 * MIB));
        assertEquals(1472 * MIB, MemoryTierSizing.budget(OptionalLong.of(4096 * MIB), 1024 * MIB));
    }

    @Test
    void moreWhenLookupsLeaveNoPagesInTheCache() {
        // 1 GiB cgroup, a 247 MiB heap: (1024 - 247 - 128) x 0.7 = 454.3, whole MiB; the page-cache share was 324
        assertEquals(454 * MIB, MemoryTierSizing.budget(OptionalLong.of(1024 * MIB), 247 * MIB, true));
        assertEquals(324 * MIB, MemoryTierSizing.budget(OptionalLong.of(1024 * MIB), 247 * MIB, false));
        assertEquals(1024 * MIB, MemoryTierSizing.budget(OptionalLong.empty(), 247 * MIB, true));
    }

    @Test
    void aLimitTooSmallForTheReserveGivesNoTier() {
        assertEquals(0, MemoryTierSizing.budget(OptionalLong.of(160 * MIB), 40 * MIB));
    }

    @Test
    void wholeMebibytes() {
        long b = MemoryTierSizing.budget(OptionalLong.of(512 * MIB + 12345), 128 * MIB);
        assertEquals(0, b % MIB);
    }
}
