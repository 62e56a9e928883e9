// OriginOptions -- the validated limits of the origin client's connections.
package io.elastikey.edge.content;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings for {@link OriginClient}, from {@link #builder()}; {@link Builder#build()} fails fast on a bad
 * value and names it, nothing is clamped. Pools are per event loop, so the limits on connections and waiting
 * requests are per loop too: an edge with 4 loops and {@code maxConnectionsPerLoop} 64 may open 256 connections.
 */
public final class OriginOptions {
    private final int maxConnectionsPerLoop;
    private final int maxWaitingPerLoop;
    private final Duration connectTimeout;
    private final Duration responseTimeout;
    private final Duration idleTimeout;
    private final int maxResponseBytes;

    private OriginOptions(Builder b) {
        this.maxConnectionsPerLoop = b.maxConnectionsPerLoop;
        this.maxWaitingPerLoop = b.maxWaitingPerLoop;
        this.connectTimeout = b.connectTimeout;
        this.responseTimeout = b.responseTimeout;
        this.idleTimeout = b.idleTimeout;
        this.maxResponseBytes = b.maxResponseBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static OriginOptions defaults() {
        return builder().build();
    }

    public int maxConnectionsPerLoop() { return maxConnectionsPerLoop; }
    public int maxWaitingPerLoop() { return maxWaitingPerLoop; }
    public Duration connectTimeout() { return connectTimeout; }
    public Duration responseTimeout() { return responseTimeout; }
    public Duration idleTimeout() { return idleTimeout; }
    public int maxResponseBytes() { return maxResponseBytes; }

    @Override
    public String toString() {
        return "OriginOptions{maxConnectionsPerLoop=" + maxConnectionsPerLoop + ", maxWaitingPerLoop="
                + maxWaitingPerLoop + ", connectTimeout=" + connectTimeout + ", responseTimeout=" + responseTimeout
                + ", idleTimeout=" + idleTimeout + ", maxResponseBytes=" + maxResponseBytes + "}";
    }

    /** Every setter's javadoc gives its default. */
    public static final class Builder {
        private int maxConnectionsPerLoop = 64;
        private int maxWaitingPerLoop = 1024;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration responseTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private int maxResponseBytes = 16 << 20;

        private Builder() {
        }

        /** Connections open or opening to the origin from one event loop, 1 to 10000. Default 64. */
        public Builder maxConnectionsPerLoop(int v) { maxConnectionsPerLoop = v; return this; }

        /** Requests of one loop waiting for a connection, 0 to 1000000; beyond it 503. Default 1024. */
        public Builder maxWaitingPerLoop(int v) { maxWaitingPerLoop = v; return this; }

        /** TCP connect limit, 1 ms to 5 min; past it 502. Default 2 s. */
        public Builder connectTimeout(Duration v) { connectTimeout = v; return this; }

        /** From the request's arrival to the origin's complete answer, waiting included; past it 504. Default 10 s. */
        public Builder responseTimeout(Duration v) { responseTimeout = v; return this; }

        /** A pooled connection unused this long is closed, 1 ms to 1 h. Default 30 s. */
        public Builder idleTimeout(Duration v) { idleTimeout = v; return this; }

        /** Largest origin response body, 0 to 1 GiB; a larger one is a 502. Default 16 MiB. */
        public Builder maxResponseBytes(int v) { maxResponseBytes = v; return this; }

        public OriginOptions build() {
            require(maxConnectionsPerLoop >= 1 && maxConnectionsPerLoop <= 10_000,
                    "maxConnectionsPerLoop must be in [1, 10000], was " + maxConnectionsPerLoop);
            require(maxWaitingPerLoop >= 0 && maxWaitingPerLoop <= 1_000_000,
                    "maxWaitingPerLoop must be in [0, 1000000], was " + maxWaitingPerLoop);
            duration("connectTimeout", connectTimeout, Duration.ofMinutes(5));
            duration("responseTimeout", responseTimeout, Duration.ofHours(1));
            duration("idleTimeout", idleTimeout, Duration.ofHours(1));
            require(maxResponseBytes >= 0 && maxResponseBytes <= (1 << 30),
                    "maxResponseBytes must be in [0, 1 GiB], was " + maxResponseBytes);
            return new OriginOptions(this);
        }

        private static void duration(String name, Duration v, Duration max) {
            Objects.requireNonNull(v, name);
            require(v.toMillis() >= 1 && v.compareTo(max) <= 0, name + " must be in [1 ms, " + max + "], was " + v);
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
