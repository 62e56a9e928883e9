// KeyServerPoolOptions -- timeouts, retries, breaker and health-check settings of a KeyServerPool; validated.
package io.elastikey.edge.keyservers;

import java.time.Duration;
import java.util.Objects;

import io.elastikey.protocol.ski.SkiHttpVersion;

/**
 * The settings of one {@link KeyServerPool}. Built with {@link #builder()}, changed with {@link #mutate()};
 * {@link Builder#build()} refuses a bad value with an {@link IllegalArgumentException} naming it, never clamping.
 *
 * <p>The defaults fit a handshake budget: an attempt may take {@code attemptTimeout} (500 ms), an operation at most
 * {@code deadline} (2 s) over at most {@code maxAttempts} (3) attempts, so a handshake waits for at most three key
 * servers before failing. A breaker opens after {@code failureThreshold} (5) failures in a row and stays open
 * {@code openDuration} (2 s), twice as long after each failed trial, up to {@code maxOpenDuration} (30 s). Every
 * {@code healthCheckInterval} (2 s) each endpoint gets a probe. {@code connectTimeout} (1 s) bounds a TCP connect plus
 * TLS handshake: shorter than the key client's own default, so an unreachable host is given up on soon.
 */
public final class KeyServerPoolOptions {
    private static final Duration MAX = Duration.ofHours(1);

    private final Duration attemptTimeout;
    private final Duration deadline;
    private final int maxAttempts;
    private final int connectionsPerEndpoint;
    private final SkiHttpVersion httpVersion;
    private final KeyServerProtocol protocol;
    private final Duration connectTimeout;
    private final int failureThreshold;
    private final Duration openDuration;
    private final Duration maxOpenDuration;
    private final Duration healthCheckInterval;

    private KeyServerPoolOptions(Builder b) {
        this.attemptTimeout = b.attemptTimeout;
        this.deadline = b.deadline;
        this.maxAttempts = b.maxAttempts;
        this.connectionsPerEndpoint = b.connectionsPerEndpoint;
        this.httpVersion = b.httpVersion;
        this.protocol = b.protocol;
        this.connectTimeout = b.connectTimeout;
        this.failureThreshold = b.failureThreshold;
        this.openDuration = b.openDuration;
        this.maxOpenDuration = b.maxOpenDuration;
        this.healthCheckInterval = b.healthCheckInterval;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static KeyServerPoolOptions defaults() {
        return builder().build();
    }

    /** A builder holding these options, to change some of them. */
    public Builder mutate() {
        return new Builder().attemptTimeout(attemptTimeout).deadline(deadline).maxAttempts(maxAttempts)
                .connectionsPerEndpoint(connectionsPerEndpoint).httpVersion(httpVersion).protocol(protocol).connectTimeout(connectTimeout)
                .failureThreshold(failureThreshold).openDuration(openDuration).maxOpenDuration(maxOpenDuration)
                .healthCheckInterval(healthCheckInterval);
    }

    /** The longest one attempt on one key server may take, waiting for a connection included. */
    public Duration attemptTimeout() {
        return attemptTimeout;
    }

    /** The longest a whole operation may take, all attempts included. */
    public Duration deadline() {
        return deadline;
    }

    /** Attempts per operation, the first included; each retry goes to another key server. */
    public int maxAttempts() {
        return maxAttempts;
    }

    public int connectionsPerEndpoint() {
        return connectionsPerEndpoint;
    }

    /** The HTTP version spoken; the pool's SslContext must offer it through ALPN. */
    public SkiHttpVersion httpVersion() {
        return httpVersion;
    }

    /** SKI or Keyless; with Keyless the HTTP version does not apply. */
    public KeyServerProtocol protocol() {
        return protocol;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** Failures in a row that open an endpoint's breaker. */
    public int failureThreshold() {
        return failureThreshold;
    }

    /** How long a breaker first stays open. */
    public Duration openDuration() {
        return openDuration;
    }

    /** The longest a breaker stays open, however many trials failed. */
    public Duration maxOpenDuration() {
        return maxOpenDuration;
    }

    public Duration healthCheckInterval() {
        return healthCheckInterval;
    }

    @Override
    public String toString() {
        return "KeyServerPoolOptions[attemptTimeout=" + attemptTimeout + ", deadline=" + deadline + ", maxAttempts="
                + maxAttempts + ", connectionsPerEndpoint=" + connectionsPerEndpoint + ", "
                + (protocol == KeyServerProtocol.KEYLESS ? "Keyless" : "HTTP/" + httpVersion.label()) + ", connectTimeout=" + connectTimeout + ", failureThreshold=" + failureThreshold
                + ", openDuration=" + openDuration + ", maxOpenDuration=" + maxOpenDuration
                + ", healthCheckInterval=" + healthCheckInterval + "]";
    }

    /** Collects options; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private Duration attemptTimeout = Duration.ofMillis(500);
        private Duration deadline = Duration.ofSeconds(2);
        private int maxAttempts = 3;
        private int connectionsPerEndpoint = 2;
        private SkiHttpVersion httpVersion = SkiHttpVersion.HTTP_2;
        private KeyServerProtocol protocol = KeyServerProtocol.SKI;
        private Duration connectTimeout = Duration.ofSeconds(1);
        private int failureThreshold = 5;
        private Duration openDuration = Duration.ofSeconds(2);
        private Duration maxOpenDuration = Duration.ofSeconds(30);
        private Duration healthCheckInterval = Duration.ofSeconds(2);

        private Builder() {
        }

        public Builder attemptTimeout(Duration value) {
            this.attemptTimeout = value;
            return this;
        }

        public Builder deadline(Duration value) {
            this.deadline = value;
            return this;
        }

        public Builder maxAttempts(int value) {
            this.maxAttempts = value;
            return this;
        }

        public Builder connectionsPerEndpoint(int value) {
            this.connectionsPerEndpoint = value;
            return this;
        }

        public Builder httpVersion(SkiHttpVersion value) {
            this.httpVersion = value;
            return this;
        }

        public Builder protocol(KeyServerProtocol value) {
            this.protocol = value;
            return this;
        }

        public Builder connectTimeout(Duration value) {
            this.connectTimeout = value;
            return this;
        }

        public Builder failureThreshold(int value) {
            this.failureThreshold = value;
            return this;
        }

        public Builder openDuration(Duration value) {
            this.openDuration = value;
            return this;
        }

        public Builder maxOpenDuration(Duration value) {
            this.maxOpenDuration = value;
            return this;
        }

        public Builder healthCheckInterval(Duration value) {
            this.healthCheckInterval = value;
            return this;
        }

        /** @throws IllegalArgumentException naming the first option whose value is out of range */
        public KeyServerPoolOptions build() {
            requireMillis(attemptTimeout, "attemptTimeout");
            requireMillis(deadline, "deadline");
            require(deadline.compareTo(attemptTimeout) >= 0,
                    "deadline (" + deadline + ") must be at least attemptTimeout (" + attemptTimeout + ")");
            require(maxAttempts >= 1 && maxAttempts <= 10, "maxAttempts must be 1..10, not " + maxAttempts);
            require(connectionsPerEndpoint >= 1 && connectionsPerEndpoint <= 64,
                    "connectionsPerEndpoint must be 1..64, not " + connectionsPerEndpoint);
            Objects.requireNonNull(httpVersion, "httpVersion");
            Objects.requireNonNull(protocol, "protocol");
            requireMillis(connectTimeout, "connectTimeout");
            require(failureThreshold >= 1 && failureThreshold <= 1000,
                    "failureThreshold must be 1..1000, not " + failureThreshold);
            requireMillis(openDuration, "openDuration");
            requireMillis(maxOpenDuration, "maxOpenDuration");
            require(maxOpenDuration.compareTo(openDuration) >= 0,
                    "maxOpenDuration (" + maxOpenDuration + ") must be at least openDuration (" + openDuration + ")");
            requireMillis(healthCheckInterval, "healthCheckInterval");
            return new KeyServerPoolOptions(this);
        }

        private static void requireMillis(Duration value, String name) {
            Objects.requireNonNull(value, name);
            require(value.compareTo(Duration.ofMillis(1)) >= 0 && value.compareTo(MAX) <= 0,
                    name + " must be 1 ms..1 hour, not " + value);
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
