package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import io.netty.util.concurrent.EventExecutor;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs private-key operations on a bounded pool of worker threads, so they never run on a
 * network event loop, and says {@code overloaded} rather than letting work pile up.
 *
 * <h2>Admission</h2>
 * A fixed number of workers takes operations from a bounded queue. When the queue is full,
 * {@link #submit} returns a future that has already failed with {@link SkiError#OVERLOADED}:
 * an immediate 503 costs the client less than an answer that arrives after its handshake timed
 * out. Every operation carries a deadline ({@link System#nanoTime()} terms); one whose deadline
 * has passed when submitted, or when a worker takes it, fails with {@code OVERLOADED} without
 * touching the key, so a backlog drains at queue speed instead of crypto speed.
 *
 * <h2>Cheap operations are not handed off</h2>
 * An operation the {@link KeyOperation} can do for about the cost of a TLS record ({@link
 * KeyOperation#performIfCheap}: a P-256 signature whose nonce was made ahead at idle priority) is done on the
 * submitting thread, when that is where its future is to complete: a hand-off to a worker and back costs two thread
 * wake-ups, more CPU than the operation, and most of a request's latency below saturation. Everything else, and
 * every P-256 signature that finds no nonce ready, goes to a worker as before, so the expensive part of crypto never
 * runs on an event loop.
 *
 * <h2>Threading of completion</h2>
 * With {@link #submit(LoadedKey, SkiRequest, long, Executor)} the future is completed on the
 * given executor (a Netty channel's event loop, say), so callbacks attached without an executor
 * run there and never on a worker. With {@link #submit(LoadedKey, SkiRequest, long)} the future
 * is completed on the worker thread, which then runs non-async callbacks itself: keep those
 * short (hand the answer to an event loop) or attach them with {@code *Async(executor)}. A future
 * failed at submission is completed on the submitting thread before {@code submit} returns.
 *
 * <h2>Closing</h2>
 * {@link #close()} stops admission, lets queued operations finish for up to the configured
 * timeout, then fails whatever is left with {@code OVERLOADED}.
 */
public final class CryptoEngine implements AutoCloseable {
    private final KeyOperation operation;
    private final CryptoEngineConfig config;
    private final ArrayBlockingQueue<Runnable> queue;
    private final ThreadPoolExecutor pool;
    private final AtomicInteger active = new AtomicInteger();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder inlined = new LongAdder();

    public CryptoEngine(KeyOperation operation, CryptoEngineConfig config) {
        this.operation = Objects.requireNonNull(operation, "operation");
        this.config = Objects.requireNonNull(config, "config");
        this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
        this.pool = new ThreadPoolExecutor(config.workers(), config.workers(), 0, TimeUnit.MILLISECONDS, queue,
                workerThreads(), new ThreadPoolExecutor.AbortPolicy());
        pool.prestartAllCoreThreads();
    }

    /** Submits an operation whose future completes on the worker thread (see the class comment). */
    public CompletableFuture<byte[]> submit(LoadedKey key, SkiRequest request, long deadlineNanos) {
        return submit(key, request, deadlineNanos, null);
    }

    /**
     * Submits an operation.
     *
     * @param deadlineNanos      the {@link System#nanoTime()} after which the answer is useless
     * @param completionExecutor where the future is completed, or {@code null} for the worker
     * @return the output, or a failure with a {@link SkiException}: {@code OVERLOADED} when the
     *         queue is full, the engine closed or the deadline passed; {@code MALFORMED_REQUEST}
     *         or {@code UNSPECIFIED_ERROR} from the operation
     */
    public CompletableFuture<byte[]> submit(LoadedKey key, SkiRequest request, long deadlineNanos,
                                            Executor completionExecutor) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(request, "request");
        CompletableFuture<byte[]> future = new CompletableFuture<>();
        if (System.nanoTime() - deadlineNanos >= 0) {
            expired.increment();
            future.completeExceptionally(overloaded("deadline passed before submission"));
            return future;
        }
        if (config.inline() && onCompletionThread(completionExecutor) && completedInline(key, request, future)) {
            return future;
        }
        try {
            pool.execute(new Task(key, request, deadlineNanos, future, completionExecutor));
        } catch (RejectedExecutionException e) {
            rejected.increment();
            future.completeExceptionally(overloaded(pool.isShutdown() ? "crypto engine closed" : "crypto queue full"));
        }
        return future;
    }

    /** Does the operation on this thread if it is cheap; false, having done nothing, when it is not. */
    private boolean completedInline(LoadedKey key, SkiRequest request, CompletableFuture<byte[]> future) {
        byte[] output;
        try {
            output = operation.performIfCheap(key, request);
        } catch (SkiException e) {
            countInline(true);
            future.completeExceptionally(e);
            return true;
        } catch (RuntimeException e) {
            countInline(true);
            future.completeExceptionally(unspecified(e));
            return true;
        }
        if (output == null) {
            return false;
        }
        countInline(false);
        future.complete(output);
        return true;
    }

    private void countInline(boolean failure) {
        inlined.increment();
        completed.increment();
        if (failure) {
            failed.increment();
        }
    }

    private static boolean onCompletionThread(Executor executor) {
        return executor == null || executor instanceof EventExecutor loop && loop.inEventLoop();
    }

    /** Operations waiting for a worker. */
    public int queueDepth() {
        return queue.size();
    }

    /** Workers running an operation right now. */
    public int activeWorkers() {
        return active.get();
    }

    /** Of {@link #completedCount()}, those done on the submitting thread ({@link KeyOperation#performIfCheap}). */
    public long inlinedCount() {
        return inlined.sum();
    }

    /**
     * Operations a worker, or the submitting thread for a cheap one, ran to an answer or an error (failures
     * included).
     */
    public long completedCount() {
        return completed.sum();
    }

    /** Of {@link #completedCount()}, those that ended in an error. */
    public long failedCount() {
        return failed.sum();
    }

    /** Operations refused at submission because the queue was full or the engine closed. */
    public long rejectedCount() {
        return rejected.sum();
    }

    /** Operations dropped because their deadline passed before a worker could start them. */
    public long expiredCount() {
        return expired.sum();
    }

    /** The operation the workers run, for callers that run one on their own thread (the start-up warm-up). */
    public KeyOperation operation() {
        return operation;
    }

    public CryptoEngineConfig config() {
        return config;
    }

    /** Stops admission, drains the queue for up to the close timeout, then fails what is left. */
    @Override
    public void close() {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(config.closeTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                abandon(pool.shutdownNow());
            }
        } catch (InterruptedException e) {
            abandon(pool.shutdownNow());
            Thread.currentThread().interrupt();
        }
    }

    private void abandon(List<Runnable> left) {
        for (Runnable r : left) {
            ((Task) r).finish(null, overloaded("crypto engine closed"));
        }
    }

    private static SkiException overloaded(String reason) {
        return new SkiException(SkiError.OVERLOADED, reason);
    }

    private static SkiException unspecified(Throwable cause) {
        return new SkiException(SkiError.UNSPECIFIED_ERROR, "crypto operation failed: "
                + cause.getClass().getSimpleName(), cause);
    }

    private static ThreadFactory workerThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "elastikey-crypto-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One queued operation and where its answer goes. */
    private final class Task implements Runnable {
        private final LoadedKey key;
        private final SkiRequest request;
        private final long deadlineNanos;
        private final CompletableFuture<byte[]> future;
        private final Executor completionExecutor;

        Task(LoadedKey key, SkiRequest request, long deadlineNanos, CompletableFuture<byte[]> future,
             Executor completionExecutor) {
            this.key = key;
            this.request = request;
            this.deadlineNanos = deadlineNanos;
            this.future = future;
            this.completionExecutor = completionExecutor;
        }

        @Override
        public void run() {
            if (System.nanoTime() - deadlineNanos >= 0) {
                expired.increment();
                finish(null, overloaded("deadline passed in the crypto queue"));
                return;
            }
            active.incrementAndGet();
            byte[] output = null;
            SkiException error = null;
            try {
                output = operation.perform(key, request);
            } catch (SkiException e) {
                error = e;
            } catch (RuntimeException e) {
                error = unspecified(e);
            } catch (Error e) {
                failed.increment();
                finish(null, unspecified(e)); // answer the client, then let the worker die as it should
                throw e;
            } finally {
                active.decrementAndGet();
                completed.increment();
            }
            if (error != null) {
                failed.increment();
            }
            finish(output, error);
        }

        void finish(byte[] output, SkiException error) {
            Runnable completion = error == null ? () -> future.complete(output)
                    : () -> future.completeExceptionally(error);
            if (completionExecutor == null) {
                completion.run();
                return;
            }
            try {
                completionExecutor.execute(completion);
            } catch (RejectedExecutionException e) {
                completion.run(); // the executor is shutting down: answer here rather than never
            }
        }
    }
}
