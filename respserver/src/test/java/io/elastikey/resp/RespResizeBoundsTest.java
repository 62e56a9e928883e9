// RespResizeBoundsTest -- ELASTIC.RESIZE refuses what it cannot parse and sizes outside the bounds, in one line.
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.governor.GovernorConfig;
import io.elastikey.store.governor.ProcMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, defect 2: {@code 0} emptied the tier, {@code 2^63} died in the resizer with a stack
 * trace, {@code 1 TiB} ran the process out of memory. Each is now a one-line error and the budget
 * stays; sizes with units work. The machine's memory comes from a meminfo file of the test's own.
 */
class RespResizeBoundsTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    /** A server of a 16 MiB store whose resizes may go from 4 MiB to 1 PiB, on a machine with {@code availableMib}. */
    private RespFixture fixture(long availableMib) throws Exception {
        Path meminfo = Files.writeString(dir.resolve("meminfo"), "MemTotal: 99999999 kB\nMemAvailable: "
                + (availableMib << 10) + " kB\n");
        ProcMemory proc = new ProcMemory(dir.resolve("no-status"), meminfo);
        ResizeBounds bounds = ResizeBounds.of(GovernorConfig.builder().minBudgetBytes(4 * MIB)
                .maxBudgetBytes(1L << 50).reserveBytes(512 * MIB).build(), proc);
        return new RespFixture(dir.resolve("store"), RespOptions.builder().resizeBounds(bounds).build(), "127.0.0.1");
    }

    @Test
    void zeroAndSizesBelowTheMinimumAreRefusedAndTheTierStays() throws Exception {
        try (RespFixture f = fixture(4096); RawClient c = f.client()) {
            assertRefused(f, c.call("ELASTIC.RESIZE", "0"), "ERR ELASTIC.RESIZE refused: 0 bytes is below the "
                    + "minimum budget of 4 MiB (--resize-min)");
            assertRefused(f, c.call("ELASTIC.RESIZE", "1m"), "ERR ELASTIC.RESIZE refused: 1 MiB is below");
        }
    }

    @Test
    void whatIsNotASizeIsOneLineErrorNotAStackTrace() throws Exception {
        try (RespFixture f = fixture(4096); RawClient c = f.client()) {
            for (String bad : new String[] {"2^63", "9223372036854775808", "-1", "abc", "", "1.5g", "+8m", " 8m",
                    "8 m", "8mb", "0x10", "1e9", "99999999999999999999999", "9223372036854775807k"}) {
                assertRefused(f, c.call("ELASTIC.RESIZE", bad), "ERR value is not an integer or out of range");
            }
            assertThat(c.call("PING")).as("the connection goes on").isEqualTo("PONG");
        }
    }

    @Test
    void moreThanTheMachineCanSpareIsRefused() throws Exception {
        // 600 MiB available, 512 MiB reserved: the 16 MiB budget may grow by 88 MiB at most.
        try (RespFixture f = fixture(600); RawClient c = f.client()) {
            assertRefused(f, c.call("ELASTIC.RESIZE", Long.toString(1L << 40)), "ERR ELASTIC.RESIZE refused: "
                    + "1048576 MiB is more than the machine can spare: at most 104 MiB");
            assertRefused(f, c.call("ELASTIC.RESIZE", "9223372036854775807"), "ERR ELASTIC.RESIZE refused: ");
            assertRefused(f, c.call("ELASTIC.RESIZE", "105m"), "ERR ELASTIC.RESIZE refused: 105 MiB is more than");
            assertThat(c.call("ELASTIC.RESIZE", "104m")).isEqualTo("OK");
            assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(104 * MIB);
        }
    }

    @Test
    void aSizeWithinTheBoundsResizesAndUnitsAreRead() throws Exception {
        try (RespFixture f = fixture(4096); RawClient c = f.client()) {
            assertThat(c.call("ELASTIC.RESIZE", "8M")).isEqualTo("OK");
            assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(8 * MIB);
            assertThat(c.call("ELASTIC.RESIZE", Long.toString(12 * MIB))).isEqualTo("OK");
            assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(12 * MIB);
        }
    }

    @Test
    void theMaximumBoundsAResizeEvenWhenTheMachineHasMore() throws Exception {
        try (RespFixture f = new RespFixture(dir.resolve("store"),
                RespOptions.builder().resizeBounds(RespFixture.smallBounds()).build(), "127.0.0.1");
             RawClient c = f.client()) {
            assertRefused(f, c.call("ELASTIC.RESIZE", "1t"), "ERR ELASTIC.RESIZE refused: 1048576 MiB is above the "
                    + "maximum budget of 64 MiB (--resize-max)");
        }
    }

    /** An error of one line starting with {@code prefix}, and the store's budget and resizes as before. */
    private static void assertRefused(RespFixture f, Object reply, String prefix) {
        assertThat(reply).isInstanceOf(RawClient.Error.class);
        String text = ((RawClient.Error) reply).text();
        assertThat(text).startsWith(prefix).doesNotContain("Exception").doesNotContain("\n");
        assertThat(f.store.stats().memoryBudgetBytes()).isEqualTo(16 * MIB);
        assertThat(f.store.lastResize().targetBytes()).as("no resize started").isEqualTo(16 * MIB);
    }
}
