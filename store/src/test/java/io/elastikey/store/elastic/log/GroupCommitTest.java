// GroupCommitTest -- one fsync covers every writer waiting; a lone writer leads its own at once; a failure fails all.
package io.elastikey.store.elastic.log;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.FsyncPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GroupCommit} against a log stand-in whose fsync the test holds and releases, so batching is shown by
 * counting fsyncs, not by timing: the first writer's fsync is held while nine more append and wait; when it is
 * released, exactly one more fsync covers all nine. The same for actions handed over without waiting
 * ({@code whenDurable}).
 */
class GroupCommitTest {

    /** A log whose fsync blocks until the test releases a permit; it covers what was appended when it began. */
    private static final class HeldLog implements GroupCommit.Target {
        final AtomicLong appended = new AtomicLong();
        final AtomicInteger fsyncs = new AtomicInteger();
        final Semaphore permits = new Semaphore(0);
        final CountDownLatch firstStarted = new CountDownLatch(1);
        /** A permit per fsync begun. */
        final Semaphore begun = new Semaphore(0);
        volatile IOException failNext;
        volatile StoreException failure;

        @Override
        public long force() throws IOException {
            long covers = appended.get();
            fsyncs.incrementAndGet();
            firstStarted.countDown();
            begun.release();
            permits.acquireUninterruptibly();
            if (failNext != null) {
                throw failNext;
            }
            return covers;
        }

        @Override
        public void fail(StoreException e) {
            failure = e;
        }

        @Override
        public StoreException failure() {
            return failure;
        }

        long append(GroupCommit gc) {
            long seq = appended.incrementAndGet();
            gc.written(seq);
            return seq;
        }
    }

    // Each test's log stand-in, what its actions report, and its group commit (see start).
    private final HeldLog log = new HeldLog();
    private final LinkedBlockingQueue<Ran> ran = new LinkedBlockingQueue<>();
    private GroupCommit gc;

    /** Starts {@link #gc} over {@link #log} from sequence number 0, with no delay between fsyncs. */
    private void start(FsyncPolicy policy) {
        gc = new GroupCommit(log, policy, 0);
        gc.start(0);
    }

    /** Lets every fsync still held end, so that close's own fsync cannot hang, then closes. */
    @AfterEach
    void releaseAndClose() {
        log.permits.release(Integer.MAX_VALUE / 2);
        if (gc != null) {
            gc.close();
        }
    }

    @Test
    void writersArrivingDuringAnFsyncShareTheNextOne() throws Exception {
        start(FsyncPolicy.GROUP);
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            long first = log.append(gc);
            Future<?> leader = pool.submit(() -> gc.await(first));
            assertThat(log.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
            List<Future<?>> followers = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                long seq = log.append(gc);
                followers.add(pool.submit(() -> gc.await(seq)));
            }
            assertThat(followers).noneMatch(Future::isDone);
            assertThat(gc.isDurable(first)).isFalse();
            log.permits.release(); // the first fsync ends: it covered only the first record
            leader.get(10, TimeUnit.SECONDS);
            log.permits.release(); // the second covers the nine
            for (Future<?> f : followers) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertThat(log.fsyncs.get()).isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLoneWriterLeadsItsOwnFsyncAndACoveredOneDoesNotWait() {
        start(FsyncPolicy.GROUP);
        log.permits.release(1);
        long seq = log.append(gc);
        assertThat(gc.isDurable(seq)).isFalse();
        gc.await(seq); // no other thread: it must lead the fsync itself
        assertThat(log.fsyncs.get()).isEqualTo(1);
        assertThat(gc.isDurable(seq)).isTrue();
        assertThat(gc.isDurable(log.append(gc))).as("a record appended after the fsync").isFalse();
        gc.await(seq); // already durable
        assertThat(log.fsyncs.get()).isEqualTo(1);
    }

    @Test
    void aFailedFsyncFailsEveryWaiterAndTheLog() throws Exception {
        start(FsyncPolicy.ALWAYS);
        log.failNext = new IOException("Input/output error");
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            long a = log.append(gc);
            Future<?> first = pool.submit(() -> gc.await(a));
            assertThat(log.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
            long b = log.append(gc);
            Future<?> second = pool.submit(() -> gc.await(b));
            log.permits.release(10);
            for (Future<?> f : List.of(first, second)) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class)
                        .hasMessageContaining("Input/output error");
            }
            assertThat(log.failure).isNotNull();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void neverWaitsForNothing() {
        start(FsyncPolicy.NEVER);
        long seq = log.append(gc);
        assertThat(gc.isDurable(seq)).isTrue();
        gc.await(seq);
        assertThat(log.fsyncs.get()).isZero();
    }

    /**
     * EVERYSEC: a writer never waits, even while an fsync is held; the background thread leads an fsync of what was
     * written (nothing when nothing was), and close fsyncs the rest and stops it.
     */
    @Test
    void everySecondAWriterNeverWaitsAndTheBackgroundFsyncCoversItsWrites() throws Exception {
        start(FsyncPolicy.EVERYSEC);
        Thread.sleep(1_500);
        assertThat(log.fsyncs.get()).as("nothing written: no fsync").isZero();

        long first = log.append(gc);
        assertThat(gc.isDurable(first)).isTrue();
        gc.await(first); // returns at once: the held fsync below has not even started
        assertThat(log.firstStarted.await(10, TimeUnit.SECONDS)).as("a background fsync began").isTrue();
        long second = log.append(gc);
        gc.await(second); // while that fsync is held
        assertThat(log.fsyncs.get()).isEqualTo(1);

        log.permits.release(Integer.MAX_VALUE / 2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (log.fsyncs.get() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(log.fsyncs.get()).as("the next second's fsync covers the write made during the first").isEqualTo(2);
        gc.close();
        int atClose = log.fsyncs.get();
        long third = log.append(gc);
        Thread.sleep(1_500);
        assertThat(log.fsyncs.get()).as("closed: the thread has stopped").isEqualTo(atClose);
        assertThat(third).isEqualTo(3);
    }

    @Test
    void everySecondCloseFsyncsWhatTheThreadHasNotYet() {
        log.permits.release(Integer.MAX_VALUE / 2);
        start(FsyncPolicy.EVERYSEC);
        log.append(gc);

        gc.close();

        assertThat(log.fsyncs.get()).isEqualTo(1);
    }

    /** What {@code whenDurable} actions report: which sequence number ran, on which thread, with which failure. */
    private record Ran(long seq, String thread, RuntimeException failure) {}

    /** Hands {@link #gc} an action that reports to {@link #ran}. */
    private void whenDurable(long seq) {
        gc.whenDurable(seq, failure -> ran.add(new Ran(seq, Thread.currentThread().getName(), failure)));
    }

    /** The next {@code n} actions to report, each of them on the syncer thread and without a failure. */
    private List<Long> take(int n) throws InterruptedException {
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Ran r = ran.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("action %d of %d ran", i + 1, n).isNotNull();
            assertThat(r.failure()).isNull();
            assertThat(r.thread()).isEqualTo("elastikey-log-syncer");
            seqs.add(r.seq());
        }
        return seqs;
    }

    /**
     * Actions handed over while an fsync is held run only once an fsync covers them, on the syncer thread, and the
     * syncer leads the next fsync for all that arrived meanwhile at once: two fsyncs for ten actions, no waiting
     * thread besides it.
     */
    @Test
    void actionsHandedOverRunOnceAnFsyncCoversThemAndShareTheNextOne() throws Exception {
        start(FsyncPolicy.GROUP);
        whenDurable(log.append(gc));
        assertThat(log.firstStarted.await(10, TimeUnit.SECONDS)).as("the syncer led an fsync").isTrue();
        for (int i = 0; i < 9; i++) {
            whenDurable(log.append(gc));
        }
        assertThat(ran).as("nothing runs before its fsync ends").isEmpty();

        log.permits.release(); // the first fsync covered the first record only
        assertThat(take(1)).containsExactly(1L);
        assertThat(ran.poll(200, TimeUnit.MILLISECONDS)).as("the nine wait for the next fsync").isNull();

        log.permits.release();
        assertThat(take(9)).containsExactlyInAnyOrder(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        assertThat(log.fsyncs.get()).isEqualTo(2);
    }

    /**
     * Gathering: the first fsync answers two records; the next waits until two more are appended (the writers it
     * answered, coming back) and then covers them with the one that was already waiting: two fsyncs for five.
     * The first fsync is held for two seconds, so the gathering's bound (one fsync's time) is far off when the test
     * checks that no fsync began.
     */
    @Test
    void afterAnFsyncAnsweredNRecordsTheNextWaitsForNMore() throws Exception {
        start(FsyncPolicy.GROUP);
        long a = log.append(gc);
        long b = log.append(gc);
        whenDurable(a);
        whenDurable(b);
        assertThat(log.begun.tryAcquire(10, TimeUnit.SECONDS)).as("the syncer led an fsync").isTrue();
        whenDurable(log.append(gc)); // arrived meanwhile
        Thread.sleep(2_000);

        log.permits.release(); // covers a and b
        assertThat(take(2)).containsExactlyInAnyOrder(a, b);
        whenDurable(log.append(gc)); // the first answered writer is back
        assertThat(log.begun.tryAcquire(200, TimeUnit.MILLISECONDS)).as("no fsync before the second is back")
                .isFalse();

        whenDurable(log.append(gc)); // the second is back
        assertThat(log.begun.tryAcquire(10, TimeUnit.SECONDS)).as("then the next fsync begins").isTrue();
        log.permits.release();
        assertThat(take(3)).containsExactlyInAnyOrder(3L, 4L, 5L);
        assertThat(log.fsyncs.get()).isEqualTo(2);
    }

    /** Gathering is bounded: when the writers an fsync answered do not come back, the next fsync begins anyway. */
    @Test
    void writersThatDoNotComeBackDelayTheNextFsyncOnlySoLong() throws Exception {
        start(FsyncPolicy.GROUP);
        long a = log.append(gc);
        whenDurable(a);
        assertThat(log.begun.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
        long waiting = log.append(gc);
        whenDurable(waiting);

        log.permits.release(100);

        assertThat(take(2)).containsExactly(a, waiting);
        assertThat(log.fsyncs.get()).isEqualTo(2);
    }

    @Test
    void anActionAlreadyCoveredRunsAtOnceOnTheCallersThread() {
        log.permits.release(1);
        start(FsyncPolicy.GROUP);
        long seq = log.append(gc);
        gc.await(seq);

        whenDurable(seq);

        assertThat(ran).singleElement().satisfies(r -> {
            assertThat(r.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(r.failure()).isNull();
        });
        assertThat(log.fsyncs.get()).isEqualTo(1);
    }

    @Test
    void underNeverAnActionRunsAtOnceWithoutAnFsync() {
        start(FsyncPolicy.NEVER);

        whenDurable(log.append(gc));

        assertThat(ran).hasSize(1);
        assertThat(log.fsyncs.get()).isZero();
    }

    /** A failed fsync reaches every action waiting, with the failure, and the log is failed. */
    @Test
    void aFailedFsyncReachesEveryActionWithItsFailure() throws Exception {
        start(FsyncPolicy.ALWAYS);
        log.failNext = new IOException("Input/output error");
        whenDurable(log.append(gc));
        assertThat(log.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        whenDurable(log.append(gc));
        log.permits.release(10);
        for (int i = 0; i < 2; i++) {
            Ran r = ran.poll(10, TimeUnit.SECONDS);
            assertThat(r).isNotNull();
            assertThat(r.failure()).isInstanceOf(StoreException.class).hasMessageContaining("Input/output error");
        }
        assertThat(log.failure).isNotNull();
    }

    /** An action that throws (its event loop shut down, say) does not stop the syncer: later actions still run. */
    @Test
    void anActionThatThrowsDoesNotStopTheSyncer() throws Exception {
        log.permits.release(Integer.MAX_VALUE / 2);
        start(FsyncPolicy.GROUP);
        CountDownLatch thrown = new CountDownLatch(1);
        gc.whenDurable(log.append(gc), failure -> {
            thrown.countDown();
            throw new IllegalStateException("event loop shut down");
        });
        assertThat(thrown.await(10, TimeUnit.SECONDS)).isTrue();
        long next = log.append(gc);
        whenDurable(next);
        assertThat(take(1)).containsExactly(next);
    }

    /** Actions handed over just before close run once close's own fsync covers them. */
    @Test
    void actionsWaitingAtCloseRunWhenCloseFsyncsThem() throws Exception {
        start(FsyncPolicy.GROUP);
        whenDurable(log.append(gc));
        assertThat(log.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        whenDurable(log.append(gc));
        log.permits.release(Integer.MAX_VALUE / 2);

        gc.close();

        assertThat(take(2)).containsExactlyInAnyOrder(1L, 2L);
    }

    /** An action handed over after close (its write came just before) still runs, once an fsync covers it. */
    @Test
    void anActionHandedOverAfterCloseStillRuns() throws Exception {
        log.permits.release(Integer.MAX_VALUE / 2);
        start(FsyncPolicy.GROUP);
        whenDurable(log.append(gc));
        assertThat(take(1)).containsExactly(1L);
        gc.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (gc.hasSyncer() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(gc.hasSyncer()).as("the idle syncer ended at close").isFalse();

        long late = log.append(gc);
        whenDurable(late);

        assertThat(take(1)).containsExactly(late);
    }
}
