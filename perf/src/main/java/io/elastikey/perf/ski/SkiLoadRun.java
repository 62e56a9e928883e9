// SkiLoadRun -- drives a key-server client open loop (constant rate) or closed loop (fixed concurrency) and records results.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.random.RandomGenerator;

import io.elastikey.perf.ski.SkiWorkload.Prepared;
import io.elastikey.protocol.ski.KeyServerClient;

/**
 * The two ways to load a key server.
 *
 * <p><b>Open loop</b> ({@link #openLoop}): request {@code i} is due at {@code start + i / rate}, whether or not earlier
 * ones have been answered, and its latency runs from that intended time to its answer. A stall of the server then
 * shows in every request that should have been sent during it, not only in the one that was stuck (coordinated
 * omission, as in wrk2 and the store's {@code OpenLoopGet}). The client is asynchronous, so the schedule is kept by
 * the client's own event loops ({@link Pacer}: each loop sends its share of the requests, wakes by its timer for the
 * next one due, and writes on its own connections, with no hand-off between threads). A loop sends every request of
 * its share that is due when it wakes; a late wake sends the backlog at once, and the latencies still count from the
 * intended times.
 *
 * <p><b>Closed loop</b> ({@link #closedLoop}): {@code concurrency} requests are always in flight; each answer sends
 * the next. Latency runs from the actual send, so this mode measures the server's capacity, not the latency users
 * would see at a given rate.
 *
 * <p>Every {@code verifyEvery}-th answer is checked by {@link AnswerVerifier} on a separate thread, so that checking a
 * signature (slower than making one, for ECDSA in the JDK) never delays the event loops; checks that cannot keep up
 * are skipped and counted.
 */
final class SkiLoadRun implements AutoCloseable {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Lead time before the first request, for the progress thread to start. */
    private static final long LEAD_NANOS = 20_000_000L;
    private static final long DRAIN_NANOS = 30_000_000_000L;

    private final KeyServerClient client;
    private final EventLoopGroup loops;
    private final SkiWorkload workload;
    private final LoadStats stats;
    private final int verifyEvery;
    private final ThreadPoolExecutor verifier = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(10_000), runnable -> {
                Thread thread = new Thread(runnable, "ski-verifier");
                thread.setDaemon(true);
                return thread;
            });
    private volatile long measuredStartNanos = Long.MAX_VALUE;
    private volatile long lastAnswerNanos;

    /** @param loops the client's event loops, which keep the open-loop schedule */
    SkiLoadRun(KeyServerClient client, EventLoopGroup loops, SkiWorkload workload, LoadStats stats, int verifyEvery) {
        this.client = client;
        this.loops = loops;
        this.workload = workload;
        this.stats = stats;
        this.verifyEvery = verifyEvery;
    }

    /**
     * Sends {@code warmup} unrecorded then {@code measured} recorded requests at {@code rate} per second. Between
     * the two the warm-up's answers are awaited (up to {@link #DRAIN_NANOS}) and the schedule starts afresh: a
     * backlog built while either JVM was still compiling would otherwise be charged to the measured requests.
     */
    void openLoop(long rate, long warmup, long measured) throws InterruptedException {
        RandomGenerator random = new SplittableRandom();
        sendAtRate(System.nanoTime() + LEAD_NANOS, rate, 0, warmup, false, random);
        long drainDeadline = System.nanoTime() + DRAIN_NANOS;
        while (stats.completed.sum() < stats.sent.sum() && System.nanoTime() < drainDeadline) {
            Thread.sleep(1);
        }
        measuredStartNanos = System.nanoTime() + LEAD_NANOS;
        sendAtRate(measuredStartNanos, rate, warmup, measured, true, random);
    }

    /** Sends requests {@code first} to {@code first + count - 1} on schedule, the first due at {@code start}. */
    private void sendAtRate(long start, long rate, long first, long count, boolean recorded,
                            RandomGenerator random) throws InterruptedException {
        List<EventExecutor> executors = new ArrayList<>();
        loops.forEach(executors::add);
        CountDownLatch sent = new CountDownLatch(executors.size());
        SplittableRandom seeds = new SplittableRandom(random.nextLong());
        for (int k = 0; k < executors.size(); k++) {
            executors.get(k).execute(new Pacer(executors.get(k), k, executors.size(), start, rate, first, count,
                    recorded, seeds.split(), sent));
        }
        sent.await();
    }

    /**
     * One event loop's share of an open-loop schedule: requests {@code share}, {@code share + shares}, ... of
     * {@code count}. Runs on its loop: sends every request of its share that is due, then has the loop's timer wake it
     * for the next.
     */
    private final class Pacer implements Runnable {
        private final EventExecutor loop;
        private final int shares;
        private final long start;
        private final long rate;
        private final long first;
        private final long count;
        private final boolean recorded;
        private final RandomGenerator random;
        private final CountDownLatch sent;
        private long next;

        Pacer(EventExecutor loop, int share, int shares, long start, long rate, long first, long count,
              boolean recorded, RandomGenerator random, CountDownLatch sent) {
            this.loop = loop;
            this.shares = shares;
            this.start = start;
            this.rate = rate;
            this.first = first;
            this.count = count;
            this.recorded = recorded;
            this.random = random;
            this.sent = sent;
            this.next = share;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            while (next < count && intended(next) - now <= 0) {
                send(first + next, workload.request(first + next, random), intended(next), recorded);
                next += shares;
            }
            if (next >= count) {
                sent.countDown();
            } else {
                loop.schedule(this, intended(next) - now, TimeUnit.NANOSECONDS);
            }
        }

        private long intended(long i) {
            return start + i * NANOS_PER_SECOND / rate;
        }
    }

    /** Keeps {@code concurrency} requests in flight for {@code warmupNanos} unrecorded, then {@code measuredNanos}. */
    void closedLoop(int concurrency, long warmupNanos, long measuredNanos) throws InterruptedException {
        long start = System.nanoTime();
        measuredStartNanos = start + warmupNanos;
        long end = measuredStartNanos + measuredNanos;
        CountDownLatch finished = new CountDownLatch(concurrency);
        AtomicLong counter = new AtomicLong();
        for (int c = 0; c < concurrency; c++) {
            nextInLoop(counter, end, finished);
        }
        finished.await();
    }

    private void nextInLoop(AtomicLong counter, long end, CountDownLatch finished) {
        long now = System.nanoTime();
        if (now >= end) {
            finished.countDown();
            return;
        }
        long i = counter.getAndIncrement();
        CompletableFuture<byte[]> answer = send(i, workload.request(i, ThreadLocalRandom.current()), now,
                now >= measuredStartNanos);
        if (answer.isDone()) {
            // Refused at once (backlog, closed client): continuing on this stack would recurse without end.
            answer.whenCompleteAsync((output, failure) -> nextInLoop(counter, end, finished));
        } else {
            answer.whenComplete((output, failure) -> nextInLoop(counter, end, finished));
        }
    }

    private CompletableFuture<byte[]> send(long i, Prepared prepared, long startNanos, boolean measured) {
        stats.sent.increment();
        CompletableFuture<byte[]> answer = client.execute(prepared.request());
        answer.whenComplete((output, failure) -> {
            long done = System.nanoTime();
            try {
                if (measured) {
                    record(i, prepared, output, failure, done - startNanos, done);
                }
            } finally {
                // Last: awaitCompletion stops the verifier once every request counts as completed, so a check
                // handed to it after this count would be refused and reported as skipped.
                stats.completed.increment();
            }
        });
        return answer;
    }

    private void record(long i, Prepared prepared, byte[] output, Throwable failure, long latency, long done) {
        lastAnswerNanos = done;
        if (failure != null) {
            stats.failed(failure, latency);
            return;
        }
        stats.answered(latency);
        if (verifyEvery > 0 && i % verifyEvery == 0) {
            verify(prepared, output);
        }
    }

    private void verify(Prepared prepared, byte[] output) {
        try {
            verifier.execute(() -> {
                try {
                    stats.verification(AnswerVerifier.verify(prepared, output));
                } catch (GeneralSecurityException | RuntimeException e) {
                    stats.verification(false);
                }
            });
        } catch (RejectedExecutionException e) {
            stats.verifySkipped.increment();
        }
    }

    /** Waits until every request sent has completed or {@code timeoutNanos} passed, then for the last checks. */
    void awaitCompletion(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (stats.completed.sum() < stats.sent.sum() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        verifier.shutdown();
        verifier.awaitTermination(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** When the first measured request was due (open loop) or sent (closed loop). */
    long measuredStartNanos() {
        return measuredStartNanos;
    }

    /** When the last measured request completed. */
    long lastAnswerNanos() {
        return lastAnswerNanos;
    }

    @Override
    public void close() {
        verifier.shutdownNow();
    }
}
