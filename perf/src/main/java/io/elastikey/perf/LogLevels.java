// LogLevels -- sets logback levels from a benchmark, whose class path carries no logging configuration of its own.
package io.elastikey.perf;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/**
 * Benchmarks run with whatever logback configuration is on their class path: none from perf's own (logback's
 * default, DEBUG to the console), the launcher's from {@code ./elastikey}. A console line costs more than a
 * scale-up call, so the measured paths set their levels here. A no-op when slf4j is not bound to logback.
 */
public final class LogLevels {

    private LogLevels() {
    }

    /** Sets {@code logger} (a name, or {@code ROOT}) to {@code level} (TRACE..ERROR, OFF). */
    public static void set(String logger, String level) {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getLogger(logger).setLevel(Level.toLevel(level, Level.INFO));
        }
    }

    /** Everything at WARN, including the scale-up agent (every rescale is an INFO line) and Netty. */
    public static void warnOnly() {
        set(org.slf4j.Logger.ROOT_LOGGER_NAME, "WARN");
        set("io.elastikey", "WARN");
        set("io.netty", "WARN");
    }
}
