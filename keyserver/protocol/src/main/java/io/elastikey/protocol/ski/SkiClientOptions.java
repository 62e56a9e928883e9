// SkiClientOptions -- how an SkiClient connects and how long it waits: immutable, validated when built.
package io.elastikey.protocol.ski;

import java.time.Duration;
import java.util.Objects;

import io.netty.channel.EventLoopGroup;

/**
 * The settings of one {@link SkiClient}. Built with {@link #builder()}, changed with {@link #mutate()}; every value
 * is checked in {@link Builder#build()}, which refuses a bad one with an {@link IllegalArgumentException} naming it
 * rather than quietly clamping it, so a typo in a load-generator run or an edge config fails at start.
 *
 * <p>The defaults suit an edge server talking to one key server: HTTP/2 over one connection (streams multiplex, so
 * one is enough until a single TLS connection's event-loop thread is the limit), a 5-second connect timeout, and a
 * 10-second request timeout that only catches the truly stuck: an edge's own budget per handshake is far shorter and
 * it sets its own.
 */
public final class SkiClientOptions {
    private final SkiHttpVersion httpVersion;
    private final int connections;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final int maxOutstanding;
    private final int maxResponseBytes;
    private final String serverName;
    private final EventLoopGroup eventLoopGroup;
    private final int eventLoopThreads;
    private final boolean preferNativeTransport;

    private SkiClientOptions(Builder b) {
        this.httpVersion = b.httpVersion;
        this.connections = b.connections;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.maxOutstanding = b.maxOutstanding;
        this.maxResponseBytes = b.maxResponseBytes;
        this.serverName = b.serverName;
        this.eventLoopGroup = b.eventLoopGroup;
        this.eventLoopThreads = b.eventLoopThreads;
        this.preferNativeTransport = b.preferNativeTransport;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static SkiClientOptions defaults() {
        return builder().build();
    }

    /** A builder holding these options, to change some of them. */
    public Builder mutate() {
        Builder b = new Builder();
        b.httpVersion = httpVersion;
        b.connections = connections;
        b.connectTimeout = connectTimeout;
        b.requestTimeout = requestTimeout;
        b.maxOutstanding = maxOutstanding;
        b.maxResponseBytes = maxResponseBytes;
        b.serverName = serverName;
        b.eventLoopGroup = eventLoopGroup;
        b.eventLoopThreads = eventLoopThreads;
        b.preferNativeTransport = preferNativeTransport;
        return b;
    }

    public SkiHttpVersion httpVersion() {
        return httpVersion;
    }

    /** How many connections the client keeps: streams are spread over them (HTTP/2), or one request each (HTTP/1.1). */
    public int connections() {
        return connections;
    }

    /** The longest a TCP connect plus TLS handshake may take. */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** The longest from {@code execute} to the answer, waiting for a connection included. */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** The most requests accepted and not yet answered, sent or waiting; one more fails at once (BACKLOG_FULL). */
    public int maxOutstanding() {
        return maxOutstanding;
    }

    /** The largest answer body accepted; a larger one is a BAD_ANSWER. */
    public int maxResponseBytes() {
        return maxResponseBytes;
    }

    /** The name sent as SNI and checked against the server certificate, or {@code null} for the address's host. */
    public String serverName() {
        return serverName;
    }

    /** The caller's event loops, which the client uses but does not shut down; or {@code null}. */
    public EventLoopGroup eventLoopGroup() {
        return eventLoopGroup;
    }

    /** Threads of the client's own event loop group, when no group is given. */
    public int eventLoopThreads() {
        return eventLoopThreads;
    }

    /** Whether to use epoll where its native library loads (NIO otherwise). */
    public boolean preferNativeTransport() {
        return preferNativeTransport;
    }

    @Override
    public String toString() {
        return "SkiClientOptions[HTTP/" + httpVersion.label() + ", connections=" + connections + ", connectTimeout="
                + connectTimeout + ", requestTimeout=" + requestTimeout + ", maxOutstanding=" + maxOutstanding
                + ", maxResponseBytes=" + maxResponseBytes + ", serverName=" + serverName + ", eventLoop="
                + (eventLoopGroup != null ? "shared" : eventLoopThreads + " thread(s)")
                + ", preferNativeTransport=" + preferNativeTransport + "]";
    }

    /** Collects options; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private SkiHttpVersion httpVersion = SkiHttpVersion.HTTP_2;
        private int connections = 1;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(10);
        private int maxOutstanding = 10_000;
        private int maxResponseBytes = 64 * 1024;
        private String serverName;
        private EventLoopGroup eventLoopGroup;
        private int eventLoopThreads = 1;
        private boolean preferNativeTransport = true;

        private Builder() {
        }

        public Builder httpVersion(SkiHttpVersion value) {
            this.httpVersion = value;
            return this;
        }

        public Builder connections(int value) {
            this.connections = value;
            return this;
        }

        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder requestTimeout(Duration value) {
            this.requestTimeout = value;
            return this;
        }

        public Builder maxOutstanding(int value) {
            this.maxOutstanding = value;
            return this;
        }

        public Builder maxResponseBytes(int value) {
            this.maxResponseBytes = value;
            return this;
        }

        public Builder serverName(String value) {
            this.serverName = value;
            return this;
        }

        /** Shares the caller's group; {@code null} makes the client create (and later shut down) its own. */
        public Builder eventLoopGroup(EventLoopGroup value) {
            this.eventLoopGroup = value;
            return this;
        }

        public Builder eventLoopThreads(int value) {
            this.eventLoopThreads = value;
            return this;
        }

        public Builder preferNativeTransport(boolean value) {
            this.preferNativeTransport = value;
            return this;
        }

        /** @throws IllegalArgumentException naming the first option whose value is out of range */
        public SkiClientOptions build() {
            Objects.requireNonNull(httpVersion, "httpVersion");
            require(connections >= 1 && connections <= 10_000, "connections must be 1..10000, not " + connections);
            requirePositiveMillis(connectTimeout, "connectTimeout");
            requirePositiveMillis(requestTimeout, "requestTimeout");
            require(maxOutstanding >= 1, "maxOutstanding must be at least 1, not " + maxOutstanding);
            require(maxResponseBytes >= 64 && maxResponseBytes <= 64 << 20,
                    "maxResponseBytes must be 64..67108864, not " + maxResponseBytes);
            require(serverName == null || !serverName.isBlank(), "serverName must not be blank");
            require(eventLoopThreads >= 1 && eventLoopThreads <= 1024,
                    "eventLoopThreads must be 1..1024, not " + eventLoopThreads);
            require(eventLoopGroup == null || !eventLoopGroup.isShuttingDown(), "eventLoopGroup is shut down");
            return new SkiClientOptions(this);
        }

        private static void requirePositiveMillis(Duration value, String name) {
            Objects.requireNonNull(value, name);
            require(value.compareTo(Duration.ofMillis(1)) >= 0 && value.compareTo(Duration.ofDays(1)) <= 0,
                    name + " must be 1 ms..1 day, not " + value);
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
