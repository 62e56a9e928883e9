// RateLimitedLog -- at most N log lines a second; the next line let through says how many were held back.
package io.elastikey.protocol.net;

import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A flood of one kind of event (a scanner's bad handshakes, a fuzzer's broken frames) must not bury the rest of the
 * log or spend the event loop's time on I/O: within each one-second window the first {@code perSecond} lines go
 * out, the rest are counted, and the first line of a later window ends with {@code (N similar lines suppressed)}.
 * The events themselves are counted in metrics, so nothing is lost but their text.
 *
 * <p>Thread-safe: every event loop of a server shares one instance; the lock is held only to count.
 */
public final class RateLimitedLog {
    private static final long WINDOW_NANOS = 1_000_000_000L;

    private final Logger log;
    private final Level level;
    private final int perSecond;
    private final LongSupplier nanoClock;
    private long windowStart;
    private int inWindow;
    private long suppressed;

    /** At most {@code perSecond} lines a second to {@code log} at {@code level}. */
    public RateLimitedLog(Logger log, Level level, int perSecond) {
        this(log, level, perSecond, System::nanoTime);
    }

    RateLimitedLog(Logger log, Level level, int perSecond, LongSupplier nanoClock) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond must be at least 1, not " + perSecond);
        }
        this.log = log;
        this.level = level;
        this.perSecond = perSecond;
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong();
    }

    /** Logs one line (SLF4J {@code {}} placeholders; a last {@link Throwable} argument prints its stack trace). */
    public void log(String format, Object... args) {
        long held;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (now - windowStart >= WINDOW_NANOS) {
                windowStart = now;
                inWindow = 0;
            }
            if (inWindow >= perSecond) {
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
