// RateLimitedWarning -- at most one WARN line per interval, saying how many were held back.
package io.elastikey.edge.content;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * An origin that is down fails every request; one log line per request would bury everything else and cost I/O
 * on the event loop when it is busiest. Thread-safe: any number of loops share one instance.
 */
final class RateLimitedWarning {
    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong nextDue;
    private final AtomicLong suppressed = new AtomicLong();

    RateLimitedWarning(Logger log, Duration interval) {
        this.log = log;
        this.intervalNanos = interval.toNanos();
        this.nextDue = new AtomicLong(System.nanoTime());
    }

    /** Logs at WARN unless a line went out less than an interval ago; SLF4J {@code {}} placeholders. */
    void warn(String format, Object... args) {
        long now = System.nanoTime();
        long due = nextDue.get();
        if (now - due < 0 || !nextDue.compareAndSet(due, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long held = suppressed.getAndSet(0);
        log.warn(held == 0 ? format : format + " (" + held + " similar warnings held back)", args);
    }
}
