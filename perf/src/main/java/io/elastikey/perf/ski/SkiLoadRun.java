// SkiLoadRun -- drives a key-server client open loop (constant rate) or closed loop (fixed concurrency) and records results.
package io.elastikey.perf.ski;

import java.security.GeneralSecurityException;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

import io.elastikey.perf.ski.SkiWorkload.Prepared;
import io.elastikey.protocol.ski.KeyServerClient;

/**
 * The two ways to load a key server.
 *
 * <p><b>Open loop</b> ({@link #openLoop}): request {@code i} is due at {@code start + i / rate}, whether or not earlier
 * ones have been answered, and its latency runs from that intended time to its answer. A stall of the server then
 * shows in every request that should have been sent during it, not only in the one that was stuck (coordinated
 * omission, as in wrk2 and the store's {@code OpenLoopGet}). The client is asynchronous, so one thread keeps the
 * schedule: it parks until the next request is due and sends every request that is due; if it wakes late it sends the
 * backlog at once, and their latencies still count from their intended times.
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

    SkiLoadRun(KeyServerClient client, SkiWorkload workload, LoadStats stats, int verifyEvery) {
        this.client = client;
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
                            RandomGenerator random) {
        for (long i = 0; i < count; i++) {
            long intended = start + i * NANOS_PER_SECOND / rate;
            for (long wait = intended - System.nanoTime(); wait > 0; wait = intended - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            send(first + i, workload.request(first + i, random), intended, recorded);
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
            stats.completed.increment();
            if (!measured) {
                return;
            }
            lastAnswerNanos = done;
            if (failure != null) {
                stats.failed(failure, done - startNanos);
                return;
            }
            stats.answered(done - startNanos);
            if (verifyEvery > 0 && i % verifyEvery == 0) {
                verify(prepared, output);
            }
        });
        return answer;
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
