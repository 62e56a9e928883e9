// RateLimitedLogTest -- a flood of lines becomes a few a second, and the next one says how many were held back.
package io.elastikey.protocol.net;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class RateLimitedLogTest {
    private final AtomicLong now = new AtomicLong();
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    private RateLimitedLog log(int perSecond) {
        Logger logger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("rate-limited-log-test");
        lines.start();
        logger.addAppender(lines);
        return new RateLimitedLog(logger, Level.INFO, perSecond, java.time.Duration.ofSeconds(1), now::get);
    }

    @Test
    void linesBeyondTheLimitInOneSecondAreHeldBackAndCountedInTheNextLine() {
        RateLimitedLog log = log(3);
        for (int i = 0; i < 100; i++) {
            log.log("line {}", i);
        }
        assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("line 0", "line 1", "line 2");

        now.addAndGet(1_000_000_000L);
        log.log("line {}", 100);

        assertThat(lines.list).hasSize(4);
        assertThat(lines.list.get(3).getFormattedMessage()).isEqualTo("line 100 (97 similar lines suppressed)");
    }

    @Test
    void aThrowableLastArgumentKeepsItsStackTrace() {
        RateLimitedLog log = log(1);
        log.log("failed on {}", "x", new IllegalStateException("boom"));
        assertThat(lines.list.get(0).getThrowableProxy().getMessage()).isEqualTo("boom");
    }
}
