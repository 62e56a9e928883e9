// CompilerActivity -- tells a start-up warm-up (the key server's, the edge's) when the JIT has compiled what it runs.
package io.elastikey.protocol.warmup;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Watches the time the JIT compilers spend compiling ({@link CompilationMXBean#getTotalCompilationTime}) over
 * windows of one second. While a workload's code is still being compiled they are busy; once they spend less than
 * a twentieth of a window compiling, twice in a row, what the workload runs is compiled and running it longer buys
 * nothing. On a JVM that does not report its compilation time the JIT never reads as quiet, so a warm-up runs for
 * its whole budget.
 *
 * <p>Not thread-safe: one caller samples it, from its own loop.
 */
public final class CompilerActivity {
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Compiling time per window below which the JIT counts as quiet: 5% of one compiler thread. */
    static final long QUIET_MILLIS = 50;
    static final int QUIET_WINDOWS = 2;

    /** The compilers' accumulated milliseconds, or -1 when the JVM does not report them. */
    private final LongSupplier compiling;
    private long windowStart;
    private long compilingAtWindowStart;
    private int quietWindows;

    public CompilerActivity(long now) {
        this(now, CompilerActivity::millisSoFar);
    }

    CompilerActivity(long now, LongSupplier compiling) {
        this.compiling = compiling;
        this.windowStart = now;
        this.compilingAtWindowStart = compiling.getAsLong();
    }

    /** The JIT compilers' accumulated compiling time in milliseconds, or -1 when this JVM does not report it. */
    public static long millisSoFar() {
        CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
        return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean.getTotalCompilationTime() : -1;
    }

    /**
     * Whether the compilers have been quiet for {@value #QUIET_WINDOWS} whole windows up to {@code now}
     * ({@link System#nanoTime}); cheap between window ends, so a loop may ask it on every turn.
     */
    public boolean quiet(long now) {
        if (now - windowStart < WINDOW_NANOS) {
            return quietWindows >= QUIET_WINDOWS;
        }
        long compilingNow = compiling.getAsLong();
        if (compilingNow < 0 || compilingAtWindowStart < 0) {
            return false;
        }
        quietWindows = compilingNow - compilingAtWindowStart < QUIET_MILLIS ? quietWindows + 1 : 0;
        windowStart = now;
        compilingAtWindowStart = compilingNow;
        return quietWindows >= QUIET_WINDOWS;
    }
}
