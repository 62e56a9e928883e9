// RedisStoreConfig -- the validated settings of one RedisStore: where Redis is, TLS files, timeouts, limits.
package io.elastikey.store.redis;

import io.elastikey.store.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable settings for {@link RedisStore}: {@link #parse(String)} reads a location with its options, or
 * {@link #builder(RedisUri)} and {@link #mutate()} set them in code. {@link Builder#build()} fails fast on a bad
 * value and names it; nothing is silently clamped.
 *
 * <p>Options in the URI's query (all optional): {@code prefix} (a key namespace, e.g. {@code ek:keys:}),
 * {@code cluster=true}, {@code timeout} (command timeout, default 2s), {@code connect-timeout} (default 2s),
 * {@code cacert} (PEM CA bundle the server's certificate must chain to; default: the JDK's trust store),
 * {@code cert} and {@code key} (PEM client certificate chain and PKCS#8 key, for servers that ask for one),
 * {@code max-value-size} (bytes, default 1 MiB), {@code batch} (commands per pipelined {@code putAll} flush,
 * default 512).
 */
public final class RedisStoreConfig {

    /** The query options Elastikey reads (the rest of a URI goes to Lettuce). */
    static final List<String> OPTIONS = List.of("prefix", "cluster", "timeout", "connect-timeout", "cacert", "cert",
            "key", "max-value-size", "batch");

    private final RedisUri uri;
    private final byte[] prefix;
    private final Duration commandTimeout;
    private final Duration connectTimeout;
    private final Path caFile;
    private final Path certificateFile;
    private final Path keyFile;
    private final int maxKeySize;
    private final int maxValueSize;
    private final int batchSize;
    private final int scanCount;
    private final Duration statsRefresh;

    private RedisStoreConfig(Builder b) {
        this.uri = b.uri;
        this.prefix = b.prefix.clone();
        this.commandTimeout = b.commandTimeout;
        this.connectTimeout = b.connectTimeout;
        this.caFile = b.caFile;
        this.certificateFile = b.certificateFile;
        this.keyFile = b.keyFile;
        this.maxKeySize = b.maxKeySize;
        this.maxValueSize = b.maxValueSize;
        this.batchSize = b.batchSize;
        this.scanCount = b.scanCount;
        this.statsRefresh = b.statsRefresh;
    }

    /**
     * The settings {@code location} describes: a Redis URI (see {@link RedisUri}) whose query may carry the options
     * listed above.
     *
     * @throws IllegalArgumentException naming the (redacted) location and the bad part
     */
    public static RedisStoreConfig parse(String location) {
        RedisUri uri = RedisUri.parse(location);
        Builder b = builder(uri);
        try {
            for (Map.Entry<String, String> option : uri.options().entrySet()) {
                String value = java.net.URLDecoder.decode(option.getValue(), StandardCharsets.UTF_8);
                switch (option.getKey()) {
                    case "prefix" -> b.prefix(value);
                    case "timeout" -> b.commandTimeout(duration(value));
                    case "connect-timeout" -> b.connectTimeout(duration(value));
                    case "cacert" -> b.caFile(Path.of(value));
                    case "cert" -> b.certificateFile(Path.of(value));
                    case "key" -> b.keyFile(Path.of(value));
                    case "max-value-size" -> b.maxValueSize(Integer.parseInt(value));
                    case "batch" -> b.batchSize(Integer.parseInt(value));
                    case "cluster" -> { }
                    default -> throw new AssertionError(option.getKey());
                }
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(uri + ": " + e.getMessage(), e);
        }
    }

    public static Builder builder(RedisUri uri) {
        return new Builder(uri);
    }

    /** A builder holding this configuration's values. */
    public Builder mutate() {
        Builder b = new Builder(uri);
        b.prefix = prefix.clone();
        b.commandTimeout = commandTimeout;
        b.connectTimeout = connectTimeout;
        b.caFile = caFile;
        b.certificateFile = certificateFile;
        b.keyFile = keyFile;
        b.maxKeySize = maxKeySize;
        b.maxValueSize = maxValueSize;
        b.batchSize = batchSize;
        b.scanCount = scanCount;
        b.statsRefresh = statsRefresh;
        return b;
    }

    public RedisUri uri() { return uri; }
    /** Prepended to every key; empty for none. A copy. */
    public byte[] prefix() { return prefix.clone(); }
    public Duration commandTimeout() { return commandTimeout; }
    public Duration connectTimeout() { return connectTimeout; }
    /** The PEM CA bundle for TLS, or {@code null} for the JDK's default trust store. */
    public Path caFile() { return caFile; }
    /** The PEM client certificate chain for TLS, or {@code null} for none. */
    public Path certificateFile() { return certificateFile; }
    /** The PEM (PKCS#8) key of {@link #certificateFile()}, or {@code null}. */
    public Path keyFile() { return keyFile; }
    public int maxKeySize() { return maxKeySize; }
    public int maxValueSize() { return maxValueSize; }
    /** Commands written per flush by {@code putAll}. */
    public int batchSize() { return batchSize; }
    /** The {@code COUNT} hint of each {@code SCAN}. */
    public int scanCount() { return scanCount; }
    /** How long {@code stats()} reuses what {@code INFO} and {@code DBSIZE} answered. */
    public Duration statsRefresh() { return statsRefresh; }

    /** Parses {@code 500ms}, {@code 2s}, {@code 1m}, or a bare number of milliseconds. */
    static Duration duration(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
            } else if (t.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            }
            return Duration.ofMillis(Long.parseLong(t));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (500ms, 2s, 1m)");
        }
    }

    /** Mutable settings; {@link #build()} validates them. */
    public static final class Builder {
        private final RedisUri uri;
        private byte[] prefix = new byte[0];
        private Duration commandTimeout = Duration.ofSeconds(2);
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Path caFile;
        private Path certificateFile;
        private Path keyFile;
        private int maxKeySize = 1024;
        private int maxValueSize = KeyValueStore.DEFAULT_MAX_VALUE_SIZE;
        private int batchSize = 512;
        private int scanCount = 1000;
        private Duration statsRefresh = Duration.ofSeconds(5);

        private Builder(RedisUri uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
        }

        public Builder prefix(byte[] prefix) { this.prefix = prefix.clone(); return this; }
        public Builder prefix(String prefix) { return prefix(prefix.getBytes(StandardCharsets.UTF_8)); }
        public Builder commandTimeout(Duration timeout) { this.commandTimeout = timeout; return this; }
        public Builder connectTimeout(Duration timeout) { this.connectTimeout = timeout; return this; }
        public Builder caFile(Path file) { this.caFile = file; return this; }
        public Builder certificateFile(Path file) { this.certificateFile = file; return this; }
        public Builder keyFile(Path file) { this.keyFile = file; return this; }
        public Builder maxKeySize(int bytes) { this.maxKeySize = bytes; return this; }
        public Builder maxValueSize(int bytes) { this.maxValueSize = bytes; return this; }
        public Builder batchSize(int commands) { this.batchSize = commands; return this; }
        public Builder scanCount(int count) { this.scanCount = count; return this; }
        public Builder statsRefresh(Duration interval) { this.statsRefresh = interval; return this; }

        public RedisStoreConfig build() {
            positive("timeout", commandTimeout);
            positive("connect-timeout", connectTimeout);
            if (statsRefresh.isNegative()) {
                throw new IllegalArgumentException("statsRefresh " + statsRefresh + " is negative");
            }
            range("maxKeySize", maxKeySize, 1, 512 << 20);
            range("max-value-size", maxValueSize, 0, 512 << 20);
            range("batch", batchSize, 1, 1 << 20);
            range("scanCount", scanCount, 1, 1 << 20);
            if ((certificateFile == null) != (keyFile == null)) {
                throw new IllegalArgumentException("cert and key go together: give both or neither");
            }
            if ((caFile != null || certificateFile != null) && !uri.tls()) {
                throw new IllegalArgumentException("cacert, cert and key need TLS: use rediss://");
            }
            return new RedisStoreConfig(this);
        }

        private static void positive(String name, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " " + value + " must be greater than zero");
            }
        }

        private static void range(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " " + value + " is outside " + min + " to " + max);
            }
        }
    }
}
