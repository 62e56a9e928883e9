// AuditStderrAppenderTest -- audit lines reach stderr a batch per write call, whole lines only, never closing it.
package io.elastikey.launcher.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import io.elastikey.keyserver.audit.AuditLog;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Audit lines reach the stream a batch per write call, whole lines only, and the stream is never closed. */
class AuditStderrAppenderTest {
    private final LoggerContext context = new LoggerContext();
    private final WriteCalls target = new WriteCalls();
    private final AuditStderrAppender appender = new AuditStderrAppender(target);

    @BeforeEach
    void start() {
        context.setMDCAdapter(new LogbackMDCAdapter());
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.start();
    }

    @AfterEach
    void stop() {
        appender.stop();
    }

    private LoggingEvent line(String text, boolean endOfBatch) {
        LoggingEvent e = new LoggingEvent("test", context.getLogger(AuditLog.LOGGER_NAME), Level.INFO, text, null, null);
        if (endOfBatch) {
            e.addMarker(AuditLog.END_OF_BATCH);
        }
        return e;
    }

    @Test
    void aBatchOfLinesIsOneWriteCallMadeAtTheMarkedLine() {
        for (int i = 0; i < 5; i++) {
            appender.doAppend(line("{\"n\":" + i + "}", false));
        }
        assertThat(target.calls).isEmpty();

        appender.doAppend(line("{\"n\":5}", true));

        assertThat(target.calls).containsExactly("{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n{\"n\":5}\n");
        appender.doAppend(line("{\"n\":6}", true));
        assertThat(target.calls).hasSize(2).last().isEqualTo("{\"n\":6}\n");
    }

    @Test
    void aFullBufferIsWrittenBeforeTheLineThatWouldNotFitSoNoLineIsSplit() {
        String text = "x".repeat(999); // 1,000 bytes with its newline
        int lines = 3 * AuditStderrAppender.BUFFER_BYTES / 1000;
        for (int i = 0; i < lines; i++) {
            appender.doAppend(line(text, false));
        }
        appender.doAppend(line("last", true));

        assertThat(target.calls).hasSizeGreaterThan(2)
                .allSatisfy(call -> assertThat(call).endsWith("\n").hasSizeLessThanOrEqualTo(
                        AuditStderrAppender.BUFFER_BYTES));
        assertThat(String.join("", target.calls)).isEqualTo((text + "\n").repeat(lines) + "last\n");
    }

    @Test
    void stoppingWritesWhatIsHeldAndLeavesTheStreamOpen() {
        appender.doAppend(line("held", false));
        appender.stop();

        assertThat(target.calls).containsExactly("held\n");
        assertThat(target.closed).isFalse();
    }

    /** Each write call's bytes, as text; whether close was called. */
    private static final class WriteCalls extends OutputStream {
        final List<String> calls = new ArrayList<>();
        boolean closed;

        @Override
        public void write(int b) {
            calls.add(String.valueOf((char) b));
        }

        @Override
        public void write(byte[] b, int off, int len) {
            calls.add(new String(b, off, len, StandardCharsets.UTF_8));
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
