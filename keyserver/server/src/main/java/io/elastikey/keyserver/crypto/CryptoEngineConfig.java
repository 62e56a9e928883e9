package io.elastikey.keyserver.crypto;

import java.time.Duration;
import java.util.Objects;

/**
 * The crypto engine's settings, validated when made: a bad value fails at start-up, never
 * silently clamped.
 *
 * @param workers       worker threads; private-key operations are CPU-bound, so more than the
 *                      machine's processors only adds switching
 * @param queueCapacity operations that may wait for a worker; beyond it a request is answered
 *                      {@code overloaded} at once. Waiting longer than a request's deadline is
 *                      pointless, so size it to about (rate the machine sustains) x (deadline).
 * @param closeTimeout  how long {@link CryptoEngine#close()} lets queued operations finish
 * @param inline        whether an operation the {@link KeyOperation} can do cheaply
 *                      ({@link KeyOperation#performIfCheap}) is done on the submitting thread instead of a worker
 */
public record CryptoEngineConfig(int workers, int queueCapacity, Duration closeTimeout, boolean inline) {
    /** Upper bound on {@code workers}: far above any useful value, low enough to catch a typo. */
    public static final int MAX_WORKERS = 1024;
    /** Upper bound on {@code queueCapacity}, for the same reason. */
    public static final int MAX_QUEUE_CAPACITY = 1 << 20;
    public static final int DEFAULT_QUEUE_CAPACITY = 1024;
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

    /** With cheap operations done inline, as by default. */
    public CryptoEngineConfig(int workers, int queueCapacity, Duration closeTimeout) {
        this(workers, queueCapacity, closeTimeout, true);
    }

    public CryptoEngineConfig {
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("crypto workers must be between 1 and " + MAX_WORKERS
                    + ", was " + workers);
        }
        if (queueCapacity < 1 || queueCapacity > MAX_QUEUE_CAPACITY) {
            throw new IllegalArgumentException("crypto queue capacity must be between 1 and " + MAX_QUEUE_CAPACITY
                    + ", was " + queueCapacity);
        }
        Objects.requireNonNull(closeTimeout, "closeTimeout");
        if (closeTimeout.isNegative()) {
            throw new IllegalArgumentException("crypto close timeout must not be negative, was " + closeTimeout);
        }
    }

    /**
     * One worker per available processor, {@value #DEFAULT_QUEUE_CAPACITY} queued operations, 10 s to close, cheap
     * operations inline.
     */
    public static CryptoEngineConfig defaults() {
        return new CryptoEngineConfig(Runtime.getRuntime().availableProcessors(), DEFAULT_QUEUE_CAPACITY,
                DEFAULT_CLOSE_TIMEOUT);
    }

    public CryptoEngineConfig withWorkers(int workers) {
        return new CryptoEngineConfig(workers, queueCapacity, closeTimeout, inline);
    }

    public CryptoEngineConfig withQueueCapacity(int queueCapacity) {
        return new CryptoEngineConfig(workers, queueCapacity, closeTimeout, inline);
    }

    public CryptoEngineConfig withCloseTimeout(Duration closeTimeout) {
        return new CryptoEngineConfig(workers, queueCapacity, closeTimeout, inline);
    }

    public CryptoEngineConfig withInline(boolean inline) {
        return new CryptoEngineConfig(workers, queueCapacity, closeTimeout, inline);
    }
}
