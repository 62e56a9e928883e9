package io.elastikey.edge.config;

import io.elastikey.edge.keyservers.KeyServerProtocol;
import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.ConfigOptions;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.config.Values;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every setting of the edge server, read once from a {@link ConfigSource} and validated: a bad value fails
 * at start with the setting's name, never later and never silently clamped. The defaults run the whole
 * suite on one machine: they share the key server's data directory, so the development PKI that the key
 * server writes in {@code <data>/pki} is also the edge's client identity and trust anchor.
 *
 * <p>The names are listed, with their defaults, in {@code docs/edge.md}.
 */
public final class EdgeConfig {
    private final Path dataDir;
    private final InetSocketAddress listen;
    private final InetSocketAddress adminListen;
    private final Path certificates;
    private final String defaultCertificate;
    private final Duration reloadInterval;
    private final List<String> protocols;
    private final List<String> ciphers;
    private final Duration ticketRotation;
    private final boolean fleetTicketKeys;
    private final List<InetSocketAddress> keyServers;
    private final String keyServerName;
    private final Path keyServerCa;
    private final Path clientCertificate;
    private final Path clientKey;
    private final SkiHttpVersion keyServerHttp;
    private final KeyServerProtocol keyServerProtocol;
    private final int keyServerConnections;
    private final Duration keyServerTimeout;
    private final Duration keyServerDeadline;
    private final int keyServerAttempts;
    private final int breakerFailures;
    private final Duration breakerOpen;
    private final Duration healthInterval;
    private final URI origin;
    private final Duration originTimeout;
    private final int originConnections;
    private final int originMaxBody;
    private final boolean cacheEnabled;
    private final Path cacheDir;
    private final long cacheMemory;
    private final int cacheMaxEntry;
    private final int maxConnections;
    private final int maxHeaderBytes;
    private final int maxBodyBytes;
    private final long answerBacklog;
    private final long answerBacklogTotal;
    private final Duration handshakeTimeout;
    private final Duration idleTimeout;
    private final Duration requestRead;
    private final int ioThreads;
    private final Duration warmupHandshakes;

    private EdgeConfig(ConfigSource source) {
        dataDir = Path.of(or(source.get("data"), ConfigOptions.DEFAULT_DATA_DIR)).toAbsolutePath().normalize();
        listen = Values.address("listen", or(source.get("listen"), "127.0.0.1:4433"));
        adminListen = Values.address("admin.listen", or(source.get("admin.listen"), "127.0.0.1:9081"));
        Path edge = dataDir.resolve("edge");
        Path pki = dataDir.resolve("pki");
        certificates = path(source, "certificates", edge.resolve("certs"));
        defaultCertificate = or(source.get("certificates.default"), "default.pem");
        reloadInterval = Values.duration("certificates.reload-interval",
                or(source.get("certificates.reload-interval"), "2s"));
        protocols = list(or(source.get("tls.protocols"), "TLSv1.3,TLSv1.2"));
        for (String p : protocols) {
            if (!p.equals("TLSv1.3") && !p.equals("TLSv1.2")) {
                throw new ConfigException("tls.protocols: '" + p + "' is not TLSv1.3 or TLSv1.2");
            }
        }
        ciphers = list(or(source.get("tls.ciphers"), String.join(",", DEFAULT_CIPHERS)));
        ticketRotation = positive("tls.tickets.rotate", or(source.get("tls.tickets.rotate"), "1h"));
        String ticketKeys = or(source.get("tls.tickets.keys"), "keyservers").strip().toLowerCase(java.util.Locale.ROOT);
        if (!ticketKeys.equals("keyservers") && !ticketKeys.equals("local")) {
            throw new ConfigException("tls.tickets.keys: '" + ticketKeys + "' is not keyservers or local");
        }
        keyServerProtocol = protocol(or(source.get("keyservers.protocol"), "ski"));
        fleetTicketKeys = ticketKeys.equals("keyservers");
        keyServers = addresses(or(source.get("keyservers"), "127.0.0.1:" + keyServerProtocol.defaultPort()));
        keyServerName = source.get("keyservers.server-name");
        keyServerCa = path(source, "keyservers.ca", pki.resolve("ca.pem"));
        clientCertificate = path(source, "keyservers.certificate", pki.resolve("client.pem"));
        clientKey = path(source, "keyservers.key", pki.resolve("client.key"));
        keyServerHttp = httpVersion(or(source.get("keyservers.http"), "2"));
        keyServerConnections = Values.positiveInt("keyservers.connections",
                or(source.get("keyservers.connections"), "2"));
        keyServerTimeout = positive("keyservers.timeout", or(source.get("keyservers.timeout"), "500ms"));
        keyServerDeadline = positive("keyservers.deadline", or(source.get("keyservers.deadline"), "2s"));
        keyServerAttempts = Values.positiveInt("keyservers.attempts", or(source.get("keyservers.attempts"), "3"));
        breakerFailures = Values.positiveInt("keyservers.breaker.failures",
                or(source.get("keyservers.breaker.failures"), "5"));
        breakerOpen = positive("keyservers.breaker.open", or(source.get("keyservers.breaker.open"), "2s"));
        healthInterval = positive("keyservers.health-interval", or(source.get("keyservers.health-interval"), "2s"));
        origin = origin(or(source.get("origin"), "http://127.0.0.1:8080"));
        originTimeout = positive("origin.timeout", or(source.get("origin.timeout"), "10s"));
        originConnections = Values.positiveInt("origin.connections", or(source.get("origin.connections"), "64"));
        originMaxBody = intSize("origin.max-body", or(source.get("origin.max-body"), "16m"));
        cacheEnabled = bool("cache.enabled", or(source.get("cache.enabled"), "true"));
        cacheDir = path(source, "cache.dir", edge.resolve("cache"));
        cacheMemory = Values.size("cache.memory", or(source.get("cache.memory"), "64m"));
        cacheMaxEntry = intSize("cache.max-entry", or(source.get("cache.max-entry"), "8m"));
        maxConnections = Values.positiveInt("limits.connections", or(source.get("limits.connections"), "10000"));
        maxHeaderBytes = intSize("limits.header", or(source.get("limits.header"), "16k"));
        maxBodyBytes = intSize("limits.body", or(source.get("limits.body"), "1m"));
        answerBacklog = positiveSize("limits.answer-backlog", or(source.get("limits.answer-backlog"), "32m"));
        answerBacklogTotal = positiveSize("limits.answer-backlog-total", or(source.get("limits.answer-backlog-total"),
                Long.toString(Math.max(64L << 20, PlatformDependent.maxDirectMemory() / 4))));
        handshakeTimeout = positive("timeouts.handshake", or(source.get("timeouts.handshake"), "10s"));
        idleTimeout = positive("timeouts.idle", or(source.get("timeouts.idle"), "60s"));
        requestRead = positive("timeouts.request-read", or(source.get("timeouts.request-read"), "30s"));
        ioThreads = Values.positiveInt("io.threads",
                or(source.get("io.threads"), Integer.toString(Runtime.getRuntime().availableProcessors())));
        warmupHandshakes = Values.duration("warmup.handshakes", or(source.get("warmup.handshakes"), "15s"));
    }

    /**
     * Ciphers in order of preference: TLS 1.3, then forward-secret ECDHE, then plain RSA key exchange last,
     * kept because old clients still need it (its one private-key operation is a decryption).
     */
    public static final List<String> DEFAULT_CIPHERS = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384");

    /** Reads and validates every setting, then rejects names that no setting uses. */
    public static EdgeConfig from(ConfigSource source) {
        EdgeConfig config = new EdgeConfig(source);
        source.rejectUnknown();
        return config;
    }

    /** The defaults, with {@code overrides} applied as if given with {@code --set}. */
    public static EdgeConfig of(Map<String, String> overrides) {
        try {
            return from(new ConfigSource(overrides, Map.of(), null));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    public Path dataDir() { return dataDir; }
    public InetSocketAddress listen() { return listen; }
    public InetSocketAddress adminListen() { return adminListen; }
    public Path certificates() { return certificates; }
    public String defaultCertificate() { return defaultCertificate; }
    public Duration reloadInterval() { return reloadInterval; }
    public List<String> protocols() { return protocols; }
    public List<String> ciphers() { return ciphers; }
    public Duration ticketRotation() { return ticketRotation; }
    /** Whether ticket keys come from the key servers (shared by the fleet) rather than from this edge alone. */
    public boolean fleetTicketKeys() { return fleetTicketKeys; }
    public List<InetSocketAddress> keyServers() { return keyServers; }
    public String keyServerName() { return keyServerName; }
    public Path keyServerCa() { return keyServerCa; }
    public Path clientCertificate() { return clientCertificate; }
    public Path clientKey() { return clientKey; }
    public SkiHttpVersion keyServerHttp() { return keyServerHttp; }
    public KeyServerProtocol keyServerProtocol() { return keyServerProtocol; }
    public int keyServerConnections() { return keyServerConnections; }
    public Duration keyServerTimeout() { return keyServerTimeout; }
    public Duration keyServerDeadline() { return keyServerDeadline; }
    public int keyServerAttempts() { return keyServerAttempts; }
    public int breakerFailures() { return breakerFailures; }
    public Duration breakerOpen() { return breakerOpen; }
    public Duration healthInterval() { return healthInterval; }
    public URI origin() { return origin; }
    public Duration originTimeout() { return originTimeout; }
    public int originConnections() { return originConnections; }
    public int originMaxBody() { return originMaxBody; }
    public boolean cacheEnabled() { return cacheEnabled; }
    public Path cacheDir() { return cacheDir; }
    public long cacheMemory() { return cacheMemory; }
    public int cacheMaxEntry() { return cacheMaxEntry; }
    public int maxConnections() { return maxConnections; }
    public int maxHeaderBytes() { return maxHeaderBytes; }
    public int maxBodyBytes() { return maxBodyBytes; }
    /** Bytes of answers one connection may have written and not yet taken; past it, answers are refused. */
    public long answerBacklog() { return answerBacklog; }
    /** The same over every connection: by default a quarter of the JVM's direct memory limit. */
    public long answerBacklogTotal() { return answerBacklogTotal; }
    public Duration handshakeTimeout() { return handshakeTimeout; }
    public Duration idleTimeout() { return idleTimeout; }
    /** How long a request, head and body, may take to arrive from its first byte; then 408 and close. */
    public Duration requestRead() { return requestRead; }
    public int ioThreads() { return ioThreads; }
    /** The most time the start may spend on handshakes with itself before it listens; zero: none. */
    public Duration warmupHandshakes() { return warmupHandshakes; }

    /** The origin's host and port, for the proxy's connections. */
    public InetSocketAddress originAddress() {
        int port = origin.getPort() > 0 ? origin.getPort() : 80;
        return InetSocketAddress.createUnresolved(origin.getHost(), port);
    }

    private static String or(String value, String fallback) {
        return value == null ? fallback : value;
    }

    private static Path path(ConfigSource source, String name, Path fallback) {
        String value = source.get(name);
        return value == null ? fallback : Path.of(value).toAbsolutePath().normalize();
    }

    private static List<String> list(String text) {
        List<String> items = new ArrayList<>();
        for (String item : text.split(",")) {
            if (!item.isBlank()) {
                items.add(item.strip());
            }
        }
        return List.copyOf(items);
    }

    private static List<InetSocketAddress> addresses(String text) {
        List<InetSocketAddress> result = new ArrayList<>();
        for (String item : list(text)) {
            result.add(Values.address("keyservers", item));
        }
        if (result.isEmpty()) {
            throw new ConfigException("keyservers: name at least one key server as HOST:PORT");
        }
        return List.copyOf(result);
    }

    private static KeyServerProtocol protocol(String text) {
        return switch (text.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "ski" -> KeyServerProtocol.SKI;
            case "keyless" -> KeyServerProtocol.KEYLESS;
            default -> throw new ConfigException("keyservers.protocol: '" + text + "' is not ski or keyless");
        };
    }

    private static SkiHttpVersion httpVersion(String text) {
        return switch (text) {
            case "2", "h2", "http/2" -> SkiHttpVersion.HTTP_2;
            case "1.1", "http/1.1" -> SkiHttpVersion.HTTP_1_1;
            default -> throw new ConfigException("keyservers.http: '" + text + "' is not 2 or 1.1");
        };
    }

    private static URI origin(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (Exception e) {
            throw new ConfigException("origin: '" + text + "' is not a URL like http://host:port");
        }
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new ConfigException("origin: '" + text + "' must be http://HOST[:PORT] (plain HTTP to the origin)");
        }
        return uri;
    }

    private static Duration positive(String name, String text) {
        Duration d = Values.duration(name, text);
        if (d.isZero() || d.isNegative()) {
            throw new ConfigException(name + ": must be greater than zero");
        }
        return d;
    }

    private static long positiveSize(String name, String text) {
        long bytes = Values.size(name, text);
        if (bytes < 1) {
            throw new ConfigException(name + ": " + text + " is less than 1 byte");
        }
        return bytes;
    }

    private static int intSize(String name, String text) {
        long bytes = positiveSize(name, text);
        if (bytes > Integer.MAX_VALUE) {
            throw new ConfigException(name + ": " + text + " is outside 1 byte to 2 GiB");
        }
        return (int) bytes;
    }

    private static boolean bool(String name, String text) {
        return switch (text) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new ConfigException(name + ": '" + text + "' is not true or false");
        };
    }
}
