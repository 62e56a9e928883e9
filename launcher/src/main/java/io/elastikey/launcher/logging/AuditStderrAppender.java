// AuditStderrAppender -- audit lines to stderr, a batch of them per write call rather than one call each.
package io.elastikey.launcher.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import io.elastikey.keyserver.audit.AuditLog;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.slf4j.Marker;

/**
 * The key server writes one audit line per request: tens of thousands a second. Logback's {@code ConsoleAppender}
 * makes each its own {@code write} to stderr (its stream flushes every line): the audit thread spent 1.9-2.3 µs a
 * line under a closed loop of signatures, 1.2-1.4 with this appender (docs/authorization.md). It keeps the lines in
 * a buffer and writes it out when the line carries {@link AuditLog#END_OF_BATCH} (the last of each batch the audit
 * thread drains, and every key change's), when it fills, and on stop. So a line waits no longer than its batch, and
 * a line is never split across two writes: the buffer is written before a line that would not fit, and a line
 * longer than the buffer goes out alone.
 *
 * <p>Stderr itself is never closed: stopping the appender writes out the buffer and leaves the descriptor to the
 * other appenders and the JVM.
 */
public final class AuditStderrAppender extends OutputStreamAppender<ILoggingEvent> {
    /**
     * {@code PIPE_BUF} on Linux: stderr is often a pipe (a container runtime, systemd, a log shipper), and a write of
     * at most this many bytes reaches a pipe in one piece, never interleaved with the main log's lines that other
     * threads write to the same descriptor. Still some 16 lines per call instead of one.
     */
    static final int BUFFER_BYTES = 4096;

    private final OutputStream target;

    public AuditStderrAppender() {
        this(new FileOutputStream(FileDescriptor.err));
    }

    /** Writing to {@code target} instead of stderr, for tests. */
    AuditStderrAppender(OutputStream target) {
        this.target = target;
    }

    @Override
    public void start() {
        setOutputStream(new KeepOpen(new BufferedOutputStream(target, BUFFER_BYTES)));
        setImmediateFlush(false);
        super.start();
    }

    @Override
    protected void subAppend(ILoggingEvent event) {
        super.subAppend(event);
        if (endsBatch(event)) {
            flush();
        }
    }

    private static boolean endsBatch(ILoggingEvent event) {
        List<Marker> markers = event.getMarkerList();
        return markers != null && markers.contains(AuditLog.END_OF_BATCH);
    }

    private void flush() {
        streamWriteLock.lock();
        try {
            getOutputStream().flush();
        } catch (IOException e) {
            addError("cannot write audit lines to stderr", e);
        } finally {
            streamWriteLock.unlock();
        }
    }

    /** Flushes instead of closing: stderr outlives the appender. */
    private static final class KeepOpen extends FilterOutputStream {
        KeepOpen(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
