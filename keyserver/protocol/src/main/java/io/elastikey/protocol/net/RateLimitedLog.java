// RateLimitedLog -- at most N log lines per window; the next line let through says how many were held back.
package io.elastikey.protocol.net;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A flood of one kind of event (a scanner's bad handshakes, a fuzzer's broken frames) must not bury the rest of the
 * log or spend the event loop's time on I/O: within each window the first {@code lines} lines go out, the rest are
 * counted, and the first line of a later window ends with {@code (N similar lines suppressed)}. Used for clients'
 * protocol errors (a few a second) and for the edge's origin and cache failures (one per ten seconds); the events
 * themselves are counted in metrics, so nothing is lost but their text.
 *
 * <p>Thread-safe: every event loop of a server shares one instance; the lock is held only to count.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final Level level;
    private final int lines;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private long windowStart;
    private int inWindow;
    private long suppressed;

    /** At most {@code lines} lines per {@code window} to {@code log} at {@code level}. */
    public RateLimitedLog(Logger log, Level level, int lines, Duration window) {
        this(log, level, lines, window, System::nanoTime);
    }

    RateLimitedLog(Logger log, Level level, int lines, Duration window, LongSupplier nanoClock) {
        if (lines < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("need at least 1 line per positive window, not " + lines + " per "
                    + window);
        }
        this.log = log;
        this.level = level;
        this.lines = lines;
        this.windowNanos = window.toNanos();
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong();
    }

    /** Logs one line (SLF4J {@code {}} placeholders; a last {@link Throwable} argument prints its stack trace). */
    public void log(String format, Object... args) {
        long held;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (now - windowStart >= windowNanos) {
                windowStart = now;
                inWindow = 0;
            }
            if (inWindow >= lines) {
                suppressed++;
                return;
            }
            inWindow++;
            held = suppressed;
            suppressed = 0;
        }
        String line = held == 0 ? format : format + " (" + held + " similar lines suppressed)";
        log.atLevel(level).log(line, args);
    }
}
