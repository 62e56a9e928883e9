// LogCapture -- everything the server logs during a test, as the bytes an operator's log file would hold.
package io.elastikey.keyserver;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import io.elastikey.keyserver.audit.AuditLog;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Attaches an appender to the root logger and to the audit logger (made non-additive meanwhile, so its lines are
 * captured once) and lowers the given loggers' levels for the duration, restoring all of it on {@link #close}.
 * The layout prints every part of an event that could carry data: message with its arguments, MDC, and full
 * stack traces with their messages.
 */
final class LogCapture implements AutoCloseable {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    private final Map<Logger, Level> saved = new LinkedHashMap<>();
    private final Logger root;
    private final Logger audit;
    private final boolean auditAdditive;

    private LogCapture(Map<String, Level> levels) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d %-5level [%thread] %logger %mdc - %msg%n%throwable{full}");
        encoder.start();
        appender.setContext(context);
        appender.setName("test-capture");
        appender.setEncoder(encoder);
        appender.setOutputStream(bytes);
        appender.start();
        levels.forEach((name, level) -> {
            Logger logger = context.getLogger(name);
            saved.put(logger, logger.getLevel());
            logger.setLevel(level);
        });
        root.addAppender(appender);
        // Directly on the audit logger too, and only there, whatever another test left its additivity at.
        audit = context.getLogger(AuditLog.LOGGER_NAME);
        auditAdditive = audit.isAdditive();
        audit.setAdditive(false);
        audit.addAppender(appender);
    }

    /**
     * Captures from now on: the root logger at DEBUG, the audit logger at INFO, the key store's loggers at DEBUG
     * (the test configuration quiets them).
     */
    static LogCapture everything() {
        Map<String, Level> levels = new LinkedHashMap<>();
        levels.put(org.slf4j.Logger.ROOT_LOGGER_NAME, Level.DEBUG);
        levels.put(AuditLog.LOGGER_NAME, Level.INFO);
        levels.put("io.elastikey.store", Level.DEBUG);
        return new LogCapture(levels);
    }

    /** Captures at the levels already configured. */
    static LogCapture asConfigured() {
        return new LogCapture(Map.of());
    }

    byte[] bytes() {
        return bytes.toByteArray();
    }

    String text() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        audit.detachAppender(appender);
        audit.setAdditive(auditAdditive);
        appender.stop();
        saved.forEach(Logger::setLevel);
    }
}
