// AuditTesting -- a client identity for events, and loggers whose output a test can read.
package io.elastikey.keyserver.audit;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;

public final class AuditTesting {
    static final ClientIdentity CLIENT = edgeClient();
    private static final AtomicInteger LOGGERS = new AtomicInteger();

    private AuditTesting() {
    }

    /** A fresh logger (not inherited by the root's appenders) writing to {@code appender}, which is started. */
    static Logger loggerWith(Appender<ILoggingEvent> appender) {
        Logger logger = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER_NAME + ".test" + LOGGERS.incrementAndGet());
        attach(logger, appender);
        return logger;
    }

    /**
     * Sends {@code logger}'s events, at INFO and up whatever the test configuration says (it quiets the audit
     * logger), to {@code appender} only.
     */
    public static void attach(Logger logger, Appender<ILoggingEvent> appender) {
        appender.setContext(logger.getLoggerContext());
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);
        logger.setLevel(Level.INFO);
    }

    /** The formatted messages a list appender has received. */
    public static List<String> lines(ListAppender<ILoggingEvent> appender) {
        synchronized (appender) {
            return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    private static ClientIdentity edgeClient() {
        try {
            CertificateAuthority ca = CertificateAuthority.create("Audit Test CA", KeyType.EC_P256, Validity.days(1));
            return ClientIdentity.of(ca.issueClient("edge-eu-1", List.of("edge-eu-1.example.net"), KeyType.EC_P256,
                    Validity.days(1)).certificate());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
