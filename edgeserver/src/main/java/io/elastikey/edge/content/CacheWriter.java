// CacheWriter -- the content cache's one writer thread: puts, deletes and the expiry sweep, off the event loops.
package io.elastikey.edge.content;

import io.elastikey.protocol.net.RateLimitedLog;
import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.KeyValueStore;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Every write of the content cache appends to the store's log, a file, so none may run on an event loop. One daemon
 * thread does them all, in order, from a queue bounded in entries and in bytes (a queued put holds its body); when
 * either bound is reached a write is dropped and counted: a cache may forget, and an edge under load must not stall
 * on its disk. Being the only writer also makes a read-check-delete here atomic with respect to other writes.
 *
 * <p>After a write, once per sweep interval, the thread walks the store and deletes every expired or damaged entry,
 * so entries nobody asks for again give their disk space back. The walk reads every value, which is why it is
 * rare and here.
 */
final class CacheWriter implements AutoCloseable {
    private final KeyValueStore store;
    private final Clock clock;
    private final long maxQueuedBytes;
    private final long sweepIntervalMillis;
    private final RateLimitedLog warnings;
    private final ThreadPoolExecutor executor;
    private final AtomicLong queuedBytes = new AtomicLong();
    private final LongAdder stores = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder swept = new LongAdder();
    private final LongAdder purged = new LongAdder();
    private long lastSweep; // writer thread only, after construction

    CacheWriter(KeyValueStore store, Clock clock, int maxQueued, long maxQueuedBytes, long sweepIntervalMillis,
                RateLimitedLog warnings) {
        this.store = store;
        this.clock = clock;
        this.maxQueuedBytes = maxQueuedBytes;
        this.sweepIntervalMillis = sweepIntervalMillis;
        this.warnings = warnings;
        this.lastSweep = clock.millis();
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(maxQueued),
                new DefaultThreadFactory("content-cache-writer", true));
    }

    /**
     * Queues a put of {@code encode(body)}, a value of {@code size} bytes. Takes ownership of {@code body} and
     * releases it whether or not the write happens. Returns whether it was queued.
     */
    boolean put(byte[] key, ByteBuf body, int size, Function<ByteBuf, byte[]> encode) {
        return put(key, body, size, encode, null);
    }

    /** As above; {@code written} (may be null) runs on the writer thread once the put is done or has failed. */
    boolean put(byte[] key, ByteBuf body, int size, Function<ByteBuf, byte[]> encode, Runnable written) {
        if (queuedBytes.addAndGet(size) > maxQueuedBytes || !submit(() -> write(key, body, size, encode, written))) {
            queuedBytes.addAndGet(-size);
            body.release();
            dropped.increment();
            return false;
        }
        return true;
    }

    private void write(byte[] key, ByteBuf body, int size, Function<ByteBuf, byte[]> encode, Runnable written) {
        try {
            store.put(key, encode.apply(body));
            stores.increment();
        } catch (RuntimeException e) {
            warnings.log("content cache write failed: {}", e.toString());
        } finally {
            body.release();
            queuedBytes.addAndGet(-size);
            if (written != null) {
                written.run();
            }
        }
        sweepIfDue();
    }

    /**
     * Queues a purge: deletes {@code exactKey} (may be null) and every key {@code purge} matches, found by a walk
     * of the store. Completes with the number of stored responses deleted ({@link VaryIndex} entries go too but
     * are not counted); fails with {@link RejectedExecutionException} when the queue is full.
     */
    CompletableFuture<Integer> purge(Purge purge, byte[] exactKey) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        boolean queued = submit(() -> {
            try {
                List<byte[]> keys = new ArrayList<>();
                int[] responses = {0};
                store.forEach((key, value) -> {
                    if (purge.matches(key) || exactKey != null && isKeyOrVariant(key, exactKey)) {
                        keys.add(key);
                        responses[0] += VaryIndex.isIndex(value) ? 0 : 1;
                    }
                });
                for (byte[] key : keys) {
                    store.delete(key);
                }
                purged.add(responses[0]);
                done.complete(responses[0]);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        if (!queued) {
            done.completeExceptionally(new RejectedExecutionException("the cache writer's queue is full"));
        }
        return done;
    }

    /** Whether {@code key} is {@code url} or one of its {@link VaryIndex} variants. */
    private static boolean isKeyOrVariant(byte[] key, byte[] url) {
        if (key.length < url.length || !Arrays.equals(key, 0, url.length, url, 0, url.length)) {
            return false;
        }
        return key.length == url.length || key[url.length] == VaryIndex.SEPARATOR;
    }

    /** Queues a delete of {@code key}. */
    void delete(byte[] key) {
        if (!submit(() -> store.delete(key))) {
            dropped.increment();
        }
    }

    /** Queues a delete of {@code key} if it then still holds an expired or damaged value; skipped when full. */
    void deleteIfStale(byte[] key) {
        submit(() -> {
            if (stale(key, clock.millis())) {
                store.delete(key);
            }
        });
    }

    private boolean stale(byte[] key, long now) {
        byte[] value;
        try {
            value = store.get(key);
        } catch (CorruptRecordException e) {
            return true;
        }
        return value != null && CachedResponse.isDead(value, now);
    }

    private void sweepIfDue() {
        long now = clock.millis();
        if (now - lastSweep < sweepIntervalMillis || executor.isShutdown()) {
            return;
        }
        lastSweep = now;
        try {
            List<byte[]> stale = new ArrayList<>();
            store.forEach((key, value) -> {
                if (CachedResponse.isDead(value, now)) {
                    stale.add(key);
                }
            });
            for (byte[] key : stale) {
                store.delete(key);
            }
            swept.add(stale.size());
        } catch (RuntimeException e) {
            warnings.log("content cache sweep failed: {}", e.toString());
        }
    }

    /** Runs {@code task} on the writer unless the queue is full or the writer closed; failures are logged. */
    private boolean submit(Runnable task) {
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    warnings.log("content cache write failed: {}", e.toString());
                }
            });
            return true;
        } catch (RejectedExecutionException full) {
            return false;
        }
    }

    long stores() {
        return stores.sum();
    }

    long dropped() {
        return dropped.sum();
    }

    /** Stored responses purges deleted. */
    long purged() {
        return purged.sum();
    }

    /** Entries the sweep deleted. */
    long swept() {
        return swept.sum();
    }

    /** Test hook: returns once every write queued before the call is done. */
    void awaitIdle() throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                executor.submit(() -> { }).get(30, TimeUnit.SECONDS);
                return;
            } catch (RejectedExecutionException full) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("the write queue stayed full");
                }
                Thread.sleep(10);
            }
        }
    }

    /** Lets queued writes finish (up to 30 s) and stops the thread; see {@link #isTerminated()}. */
    @Override
    public void close() {
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    boolean isTerminated() {
        return executor.isTerminated();
    }
}
