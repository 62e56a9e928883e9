// AuditLogTest -- events become lines in order, a full queue drops and counts instead of blocking, close drains.
package io.elastikey.keyserver.audit;

import static io.elastikey.keyserver.audit.AuditTesting.CLIENT;
import static io.elastikey.keyserver.audit.AuditTesting.attach;
import static io.elastikey.keyserver.audit.AuditTesting.lines;
import static io.elastikey.keyserver.audit.AuditTesting.loggerWith;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.keys.KeyChange;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.read.ListAppender;

import com.fasterxml.jackson.databind.ObjectMapper;

class AuditLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration IDLE = Duration.ofMillis(1);

    @Test
    void writesOneJsonLinePerEventToTheElastikeyAuditLogger() throws Exception {
        Logger audit = (Logger) LoggerFactory.getLogger("elastikey.audit");
        Level level = audit.getLevel();
        boolean additive = audit.isAdditive();
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        attach(audit, appender);
        try {
            AuditLog log = AuditLog.start(16);
            log.record(event(1, null));
            log.record(event(2, SkiError.SPKI_NOT_FOUND));
            log.close();

            assertThat(lines(appender)).hasSize(2);
            assertThat(JSON.readTree(lines(appender).get(1)).get("result").asText()).isEqualTo("spki not found");
            assertThat(appender.list).allSatisfy(line -> assertThat(line.getLevel().toString()).isEqualTo("INFO"));
            assertThat(log.written()).isEqualTo(2);
            assertThat(log.dropped()).isZero();
        } finally {
            audit.detachAppender(appender);
            audit.setLevel(level);
            audit.setAdditive(additive);
        }
    }

    @Test
    void linesFollowTheOrderEventsWereRecorded() throws Exception {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        AuditLog log = AuditLog.start(10_000, loggerWith(appender), IDLE);

        for (int i = 0; i < 5_000; i++) {
            log.record(event(i, null));
        }
        log.close();

        List<Long> micros = new ArrayList<>();
        for (String line : lines(appender)) {
            micros.add(JSON.readTree(line).get("micros").asLong());
        }
        assertThat(micros).hasSize(5_000).isSorted();
    }

    @Test
    void eachThreadsEventsKeepTheirOrderWhenThreadsRecordTogether() throws Exception {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        AuditLog log = AuditLog.start(40_000, loggerWith(appender), IDLE);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            long base = t * 1_000_000L;
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 5_000; i++) {
                    log.record(event(base + i, null));
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        log.close();

        List<List<Long>> byThread = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                new ArrayList<>());
        for (String line : lines(appender)) {
            long micros = JSON.readTree(line).get("micros").asLong();
            byThread.get((int) (micros / 1_000_000)).add(micros);
        }
        assertThat(byThread).allSatisfy(events -> assertThat(events).hasSize(5_000).isSorted());
    }

    @Test
    void aKeyChangeIsWrittenAtOnceOnTheCallersThreadEvenWhenTheQueueIsFull() throws Exception {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        AuditLog log = AuditLog.start(1, loggerWith(appender), Duration.ofHours(1));
        try {
            log.record(event(0, null));
            log.record(event(1, null)); // the queue is full; the writer sleeps for an hour (or takes one soon)

            log.recordNow(new KeyChangeEvent(Instant.now(), "ops", null, KeyChange.ADDED, "ab".repeat(32)));

            assertThat(lines(appender)).filteredOn(line -> line.contains("\"method\":\"ADD-KEY\"")).hasSize(1);
            assertThat(log.written()).isGreaterThanOrEqualTo(1);
        } finally {
            log.close();
        }
        assertThat(lines(appender)).hasSizeBetween(2, 3);
    }

    @Test
    void theLastLineOfEveryBatchAndEveryKeyChangeCarryTheEndOfBatchMarker() throws Exception {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        AuditLog log = AuditLog.start(10_000, loggerWith(appender), Duration.ofHours(1));
        for (int i = 0; i < AuditLog.BATCH + 3; i++) { // queued before the writer wakes: one full batch, then 3
            log.record(event(i, null));
        }
        log.close();
        log = AuditLog.start(16, loggerWith(appender), Duration.ofHours(1));
        log.recordNow(new KeyChangeEvent(Instant.now(), "ops", null, KeyChange.ADDED, "ab".repeat(32)));
        log.close();

        List<Integer> marked = new ArrayList<>();
        for (int i = 0; i < appender.list.size(); i++) {
            List<org.slf4j.Marker> markers = appender.list.get(i).getMarkerList();
            if (markers != null && markers.contains(AuditLog.END_OF_BATCH)) {
                marked.add(i);
            }
        }
        int last = AuditLog.BATCH + 3;
        // The writer may have woken before every event was queued: then a batch ended earlier, and was marked too.
        assertThat(marked).contains(last - 1, last).allSatisfy(i -> assertThat(i).isLessThanOrEqualTo(last));
        for (int start = 0, k = 0; k < marked.size() - 1; start = marked.get(k) + 1, k++) { // the requests' batches
            assertThat(marked.get(k) - start + 1).as("lines of batch %d", k).isBetween(1, AuditLog.BATCH);
        }
    }

    @Test
    void fullQueueDropsAndCountsInsteadOfBlocking() throws Exception {
        BlockingAppender appender = new BlockingAppender();
        AuditLog log = AuditLog.start(4, loggerWith(appender), IDLE);
        try {
            assertThat(log.record(event(0, null))).isTrue();
            assertThat(appender.entered.await(10, TimeUnit.SECONDS)).as("writer took the first event").isTrue();

            // The writer is stuck in the appender holding event 0: four more fit, five do not.
            List<Boolean> accepted = new ArrayList<>();
            for (int i = 1; i <= 9; i++) {
                accepted.add(log.record(event(i, null)));
            }

            assertThat(accepted).containsExactly(true, true, true, true, false, false, false, false, false);
            assertThat(log.dropped()).isEqualTo(5);
            assertThat(log.pending()).isEqualTo(4);
        } finally {
            appender.release.countDown();
            log.close();
        }
        assertThat(log.written()).isEqualTo(5);
        assertThat(appender.messages).hasSize(5);
    }

    @Test
    void closeWritesEverythingQueuedBeforeReturning() throws Exception {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        // A long idle wait: close must wake the writer rather than wait for it.
        AuditLog log = AuditLog.start(20_000, loggerWith(appender), Duration.ofSeconds(30));

        for (int i = 0; i < 20_000; i++) {
            log.record(event(i, null));
        }
        long started = System.nanoTime();
        log.close();

        assertThat(lines(appender)).hasSize(20_000);
        assertThat(log.written()).isEqualTo(20_000);
        assertThat(log.pending()).isZero();
        assertThat(log.dropped()).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void eventsAfterCloseAreDroppedAndCounted() {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        AuditLog log = AuditLog.start(16, loggerWith(appender), IDLE);
        log.close();

        assertThat(log.record(event(1, null))).isFalse();
        log.close();

        assertThat(log.dropped()).isEqualTo(1);
        assertThat(lines(appender)).isEmpty();
    }

    private static AuditEvent event(long micros, SkiError error) {
        return AuditEvent.now(CLIENT, null, ClientProtocol.SKI, "ab12", SkiMethod.ECDHE, error, micros);
    }

    /** An appender that holds the writer thread inside its first append until released. */
    private static final class BlockingAppender extends AppenderBase<ILoggingEvent> {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> messages = new ArrayList<>();

        @Override
        protected void append(ILoggingEvent event) {
            messages.add(event.getFormattedMessage());
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
