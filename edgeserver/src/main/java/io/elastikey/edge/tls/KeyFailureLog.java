package io.elastikey.edge.tls;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One WARN line for a handshake that failed because its private-key operation could not be done, and at most
 * one per second: when every key server is down, thousands of handshakes fail alike, and the line that
 * counts the ones it stands for says as much as thousands would.
 */
final class KeyFailureLog {
    private static final Logger log = LoggerFactory.getLogger(KeyFailureLog.class);
    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final AtomicLong nextLine = new AtomicLong(System.nanoTime());
    private final AtomicLong suppressed = new AtomicLong();

    void failed(KeyOperationListener.Kind kind, Throwable cause) {
        long now = System.nanoTime();
        long next = nextLine.get();
        if (now - next < 0 || !nextLine.compareAndSet(next, now + INTERVAL_NANOS)) {
            suppressed.incrementAndGet();
            return;
        }
        long others = suppressed.getAndSet(0);
        log.warn("handshake failed: its {} operation got no answer from a key server: {}{}",
                kind.name().toLowerCase(Locale.ROOT), cause.getMessage() != null ? cause.getMessage() : cause.toString(),
                others == 0 ? "" : " (and " + others + " more since the last line)");
    }
}
