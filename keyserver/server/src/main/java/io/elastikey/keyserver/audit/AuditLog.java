// AuditLog -- one JSON line per request, written by a background thread so the request path only enqueues.
package io.elastikey.keyserver.audit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;

/**
 * The key server's audit trail: every request, and every key a command in the server changes ({@link #recordNow}),
 * becomes one line of JSON ({@link AuditJson} has the format) on the SLF4J logger {@value #LOGGER_NAME}, at INFO,
 * so operators send it wherever they like with their logback configuration (docs/authorization.md shows a rolling
 * file).
 *
 * <p>Why asynchronous: requests are answered on Netty event loops, which must never wait for a disk. So
 * {@link #record} only puts the event on a bounded lock-free queue ({@link DropQueue}) and returns. When the queue
 * is full, because the disk or the appender cannot keep up, the event is dropped and counted: a lost audit line
 * is visible in {@link #dropped()} (export it as a metric and alert on it), a stalled key server would be an
 * outage. One daemon thread, {@value #THREAD_NAME}, drains the queue in batches of up to {@value #BATCH} events,
 * formats them and hands them to the logger; when the queue is empty it sleeps for a short idle interval, so the
 * request path never has to wake it. Lines appear in the order events were recorded by each thread.
 *
 * <p>{@link #close()} stops accepting events, writes everything already queued, and returns when the thread has
 * finished. Events recorded after close are dropped and counted. Thread-safe.
 */
public final class AuditLog implements AutoCloseable {
    /** The logger audit lines go to. */
    public static final String LOGGER_NAME = "elastikey.audit";
    /** About a second of events at 60,000 requests per second, a few MB of heap at most. */
    public static final int DEFAULT_CAPACITY = 65_536;
    static final String THREAD_NAME = "elastikey-audit";
    static final int BATCH = 512;
    /**
     * On the last line of each batch the writer hands to the logger, and on every key change's line: the moment for
     * a buffering appender to write out what it holds ({@code AuditStderrAppender} in the launcher does, so a batch
     * of lines costs one {@code write} call, not one each). Other appenders ignore it.
     */
    public static final Marker END_OF_BATCH = MarkerFactory.getMarker("elastikey-audit-end-of-batch");
    private static final Duration DEFAULT_IDLE_WAIT = Duration.ofMillis(10);

    private final DropQueue<AuditEvent> queue;
    private final Logger logger;
    private final long idleWaitNanos;
    private final LongAdder dropped = new LongAdder();
    private final AtomicLong written = new AtomicLong();
    private final Thread writer;
    private volatile boolean closed;

    private AuditLog(int capacity, Logger logger, Duration idleWait) {
        this.queue = new DropQueue<>(capacity);
        this.logger = logger;
        this.idleWaitNanos = idleWait.toNanos();
        this.writer = new Thread(this::writeUntilClosed, THREAD_NAME);
        writer.setDaemon(true);
    }

    /** Starts an audit log writing to {@value #LOGGER_NAME} that holds at most {@code capacity} pending events. */
    public static AuditLog start(int capacity) {
        return start(capacity, LoggerFactory.getLogger(LOGGER_NAME), DEFAULT_IDLE_WAIT);
    }

    /** As {@link #start(int)} with another logger and idle interval, for tests. */
    static AuditLog start(int capacity, Logger logger, Duration idleWait) {
        AuditLog log = new AuditLog(capacity, logger, idleWait);
        log.writer.start();
        return log;
    }

    /**
     * Queues {@code event} for writing. Never blocks and never throws for a full queue.
     *
     * @return {@code false} when the event was dropped (queue full, or the log closed)
     */
    public boolean record(AuditEvent event) {
        if (closed || !queue.offer(event)) {
            dropped.increment();
            return false;
        }
        return true;
    }

    /**
     * Writes a key change's line now, on the calling thread. Unlike a request's, it is never dropped: changes are few,
     * they come from a {@code keys} command's own thread rather than an event loop, and a key added or removed with
     * no trace is what an audit trail exists to rule out. Written beside the queued lines, not in their order.
     */
    public void recordNow(KeyChangeEvent event) {
        write(AuditJson.format(event), END_OF_BATCH);
    }

    /** Events handed to the logger so far. */
    public long written() {
        return written.get();
    }

    /** Events lost so far: queue full, recorded after close, or the logger threw. */
    public long dropped() {
        return dropped.sum();
    }

    /** Events waiting to be written. */
    public int pending() {
        return queue.size();
    }

    /** Writes every queued event, then stops the writer thread. Idempotent. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(writer);
        boolean interrupted = false;
        while (writer.isAlive()) {
            try {
                writer.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        writeBatch(Integer.MAX_VALUE); // events that raced with close
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void writeUntilClosed() {
        while (true) {
            if (writeBatch(BATCH) > 0) {
                continue;
            }
            if (closed) {
                if (queue.size() == 0) {
                    return;
                }
                Thread.onSpinWait(); // an offer reserved a slot and is about to add its event
            } else {
                LockSupport.parkNanos(this, idleWaitNanos);
            }
        }
    }

    /**
     * Writes up to {@code max} queued events, the last with {@link #END_OF_BATCH}; returns how many it took from the
     * queue. One event is read ahead, to know which is the last.
     */
    private int writeBatch(int max) {
        int taken = 0;
        AuditEvent event = queue.poll();
        while (event != null) {
            taken++;
            AuditEvent next = taken < max ? queue.poll() : null;
            write(AuditJson.format(event), next == null ? END_OF_BATCH : null);
            event = next;
        }
        return taken;
    }

    private void write(String line, Marker marker) {
        try {
            logger.info(marker, line); // a null marker is the plain info(line)
            written.incrementAndGet();
        } catch (RuntimeException e) {
            // Appenders rarely throw, but the writer thread must outlive one that does.
            dropped.increment();
        }
    }

    @Override
    public String toString() {
        return "AuditLog[" + LOGGER_NAME + ", written " + written() + ", dropped " + dropped() + ", pending "
                + pending() + " of " + queue.capacity() + "]";
    }
}
