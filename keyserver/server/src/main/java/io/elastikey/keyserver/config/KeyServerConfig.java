package io.elastikey.keyserver.config;

import io.elastikey.protocol.config.ConfigOptions;
import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.config.Values;
import io.elastikey.store.Stores;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import io.elastikey.store.governor.GovernorConfig;
import io.elastikey.store.memory.CgroupLimit;
import io.elastikey.store.memory.MemoryTierSizing;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Every setting of the key server and of the {@code keys} commands, read once and validated:
 * a bad value fails at start with the setting's name, never later and never silently clamped.
 *
 * <p>All paths default to places under {@link #dataDir()}, so {@code --data DIR} alone is a
 * working configuration: the server creates a development PKI and a key-encryption key there on
 * first start, and with {@code dev = true} a policy granting the development client every key. Production
 * deployments set {@code tls.*}, {@code policy} and {@code kek.file} to their own files.
 * The settings and their defaults are listed in docs/keyserver.md and by {@code --help}.
 */
public final class KeyServerConfig {
    /** {@code store.memory} with no memory limit. */
    static final long DEFAULT_STORE_MEMORY = 128L << 20;

    public static final String DEFAULT_DATA_DIR = ConfigOptions.DEFAULT_DATA_DIR;

    /**
     * {@code store.memory} when not set: 128 MiB, or less when that would not fit this process's cgroup limit beside
     * its heap and the parsed-key cache's packed keys, which live off the heap ({@code keys.cache}).
     */
    static long defaultStoreMemory(OptionalLong cgroupLimit, long maxHeapBytes, long keyCacheBytes) {
        return Math.min(DEFAULT_STORE_MEMORY, MemoryTierSizing.budget(cgroupLimit, maxHeapBytes + keyCacheBytes));
    }

    private static final long ENTRIES_PER_KEY = 4;
    /** Holds a million EC P-256 keys and ten thousand RSA-2048 keys (docs/keys.md, "Parsed-key cache"). */
    static final String DEFAULT_KEY_CACHE = "512m";

    private final Path dataDir;
    private final InetSocketAddress listen;
    private final InetSocketAddress keylessListen;
    private final int keylessMaxInFlight;
    private final Duration ticketRotation;
    private final InetSocketAddress adminListen;
    private final Path tlsCertificate;
    private final Path tlsKey;
    private final Path tlsClientCa;
    private final Path tlsCrl;
    private final TlsProvider tlsProvider;
    private final Duration reloadInterval;
    private final Path policyFile;
    private final Path controlSocket;
    private final boolean controlSocketGiven;
    private final boolean policyGiven;
    private final boolean dev;
    private final Path kekFile;
    private final long keyCacheBytes;
    private final Duration warmupExercise;
    private final Duration warmupRequests;
    private final long expectedKeys;
    private final long storeMemoryBytes;
    private final FsyncPolicy storeFsync;
    private final String store;
    private final GovernorConfig governor;
    private final Path scaleupSocket;
    private final String scaleupClient;
    private final Duration scaleupTimeout;
    private final int maxBodyBytes;
    private final int maxHeaderBytes;
    private final int maxConnections;
    private final int maxStreams;
    private final Duration handshakeTimeout;
    private final Duration idleTimeout;
    private final Duration requestDeadline;
    private final Duration requestRead;
    private final boolean revealDenied;
    private final int ioThreads;
    private final int cryptoWorkers;
    private final int cryptoQueue;
    private final int keyLoaders;
    private final String cryptoProvider;
    private final boolean nativeP256;
    private final int p256Nonces;
    private final boolean p256Inline;

    /** Which TLS implementation serves connections. */
    public enum TlsProvider { AUTO, OPENSSL, JDK }

    private KeyServerConfig(ConfigSource source) {
        dataDir = path(source, "data", ConfigOptions.defaultDataDir());
        listen = Values.address("listen", or(source.get("listen"), "127.0.0.1:8443"));
        adminListen = Values.address("admin.listen", or(source.get("admin.listen"), "127.0.0.1:9080"));
        String keyless = or(source.get("keyless.listen"), "127.0.0.1:2407").strip();
        keylessListen = keyless.equalsIgnoreCase("off") ? null : Values.address("keyless.listen", keyless);
        keylessMaxInFlight = Values.positiveInt("keyless.max-in-flight", or(source.get("keyless.max-in-flight"), "1024"));
        ticketRotation = Values.duration("tickets.rotate", or(source.get("tickets.rotate"), "1h"));
        if (ticketRotation.toSeconds() < 1) {
            throw new ConfigException("tickets.rotate: " + ticketRotation + " is under a second");
        }
        Path pki = dataDir.resolve("pki");
        tlsCertificate = path(source, "tls.certificate", pki.resolve("server.pem"));
        tlsKey = path(source, "tls.key", pki.resolve("server.key"));
        tlsClientCa = path(source, "tls.client-ca", pki.resolve("ca.pem"));
        String crl = source.get("tls.crl");
        tlsCrl = crl == null ? null : Path.of(crl).toAbsolutePath();
        tlsProvider = enumValue(TlsProvider.class, "tls.provider", or(source.get("tls.provider"), "auto"));
        reloadInterval = Values.duration("tls.reload-interval", or(source.get("tls.reload-interval"), "2s"));
        policyFile = path(source, "policy", dataDir.resolve("policy.conf"));
        policyGiven = source.get("policy") != null;
        String control = or(source.get("control.socket"), "").strip();
        controlSocketGiven = !control.isEmpty();
        controlSocket = control.equalsIgnoreCase("off") ? null
                : control.isEmpty() ? dataDir.toAbsolutePath().resolve("keyserver.sock") : Path.of(control).toAbsolutePath().normalize();
        dev = Values.bool("dev", or(source.get("dev"), "false"));
        kekFile = path(source, "kek.file", dataDir.resolve("kek"));
        keyCacheBytes = keyCacheBytes(or(source.get("keys.cache"), DEFAULT_KEY_CACHE));
        warmupExercise = Values.duration("warmup.exercise", or(source.get("warmup.exercise"), "5s"));
        warmupRequests = Values.duration("warmup.requests", or(source.get("warmup.requests"), "5s"));
        expectedKeys = Values.size("keys.expected", or(source.get("keys.expected"), "256k"));
        if (expectedKeys < 1 || expectedKeys > (1L << 32)) {
            throw new ConfigException("keys.expected: " + expectedKeys + " is outside 1 to 2^32");
        }
        storeMemoryBytes = source.get("store.memory") != null ? Values.size("store.memory", source.get("store.memory"))
                : defaultStoreMemory(CgroupLimit.system().limitBytes(), Runtime.getRuntime().maxMemory(),
                        keyCacheBytes);
        storeFsync = enumValue(FsyncPolicy.class, "store.fsync", or(source.get("store.fsync"), "group"));
        store = storeLocation(source.get("store"), dataDir);
        governor = governorConfig(source, storeMemoryBytes);
        String socket = source.get("scaleup.socket");
        scaleupSocket = socket == null || socket.isBlank() ? null : Path.of(socket).toAbsolutePath().normalize();
        scaleupClient = or(source.get("scaleup.client"), "keyserver").strip();
        if (scaleupClient.isEmpty() || scaleupClient.length() > 64) {
            throw new ConfigException("scaleup.client: '" + scaleupClient + "' must be 1 to 64 characters");
        }
        scaleupTimeout = Values.duration("scaleup.timeout", or(source.get("scaleup.timeout"), "1s"));
        if (scaleupTimeout.isZero()) {
            throw new ConfigException("scaleup.timeout must be greater than zero");
        }
        maxBodyBytes = intSize(source, "limits.body", "16k");
        maxHeaderBytes = intSize(source, "limits.header", "8k");
        maxConnections = Values.positiveInt("limits.connections", or(source.get("limits.connections"), "10000"));
        maxStreams = Values.positiveInt("limits.streams", or(source.get("limits.streams"), "256"));
        handshakeTimeout = Values.duration("timeouts.handshake", or(source.get("timeouts.handshake"), "10s"));
        idleTimeout = Values.duration("timeouts.idle", or(source.get("timeouts.idle"), "120s"));
        requestDeadline = Values.duration("timeouts.request", or(source.get("timeouts.request"), "1s"));
        requestRead = Values.duration("timeouts.request-read", or(source.get("timeouts.request-read"), "10s"));
        String deniedAnswer = or(source.get("authz.denied-answer"), "not-found").strip().toLowerCase(Locale.ROOT);
        if (!deniedAnswer.equals("not-found") && !deniedAnswer.equals("denied")) {
            throw new ConfigException("authz.denied-answer: '" + deniedAnswer + "' is not one of not-found, denied");
        }
        revealDenied = deniedAnswer.equals("denied");
        ioThreads = Values.positiveInt("io.threads",
                or(source.get("io.threads"), Integer.toString(Runtime.getRuntime().availableProcessors())));
        cryptoWorkers = Values.positiveInt("crypto.workers",
                or(source.get("crypto.workers"), Integer.toString(Runtime.getRuntime().availableProcessors())));
        cryptoQueue = Values.positiveInt("crypto.queue", or(source.get("crypto.queue"), "4096"));
        keyLoaders = Values.positiveInt("keys.loaders", or(source.get("keys.loaders"), "16"));
        cryptoProvider = or(source.get("crypto.provider"), "auto").toLowerCase(Locale.ROOT);
        if (!cryptoProvider.equals("auto") && !cryptoProvider.equals("accp") && !cryptoProvider.equals("jdk")) {
            throw new ConfigException("crypto.provider: '" + cryptoProvider + "' is not one of auto, accp, jdk");
        }
        String p256 = or(source.get("crypto.p256"), "native").toLowerCase(Locale.ROOT);
        if (!p256.equals("native") && !p256.equals("provider")) {
            throw new ConfigException("crypto.p256: '" + p256 + "' is not one of native, provider");
        }
        nativeP256 = p256.equals("native");
        p256Nonces = Values.nonNegativeInt("crypto.p256.nonces", or(source.get("crypto.p256.nonces"), "16384"));
        p256Inline = Values.bool("crypto.p256.inline", or(source.get("crypto.p256.inline"), "true"));
        if (requestDeadline.isZero() || handshakeTimeout.isZero() || requestRead.isZero()) {
            throw new ConfigException("timeouts.request, timeouts.request-read and timeouts.handshake must be "
                    + "greater than zero");
        }
    }

    /**
     * The {@code store.governor.*} settings; {@code null} when {@code store.governor} is {@code off}. Every one is
     * read (and a malformed one refused) either way.
     */
    /**
     * {@code keys.cache} is a memory size. It used to be a number of keys, so a bare number other than 0 is refused
     * rather than read as bytes: "100000" would otherwise silently become a cache of some ninety keys.
     */
    private static long keyCacheBytes(String text) {
        String t = text.strip();
        if (!t.equals("0") && !t.isEmpty() && Character.isDigit(t.charAt(t.length() - 1))) {
            throw new ConfigException("keys.cache: '" + text + "' needs a unit: it is the memory parsed keys may "
                    + "take (e.g. 512m, 1g; 0 disables the cache), no longer a number of keys");
        }
        return Values.size("keys.cache", t);
    }

    private static GovernorConfig governorConfig(ConfigSource source, long storeMemoryBytes) {
        String mode = or(source.get("store.governor"), "off").strip().toLowerCase(Locale.ROOT);
        if (!mode.equals("on") && !mode.equals("off")) {
            throw new ConfigException("store.governor: '" + mode + "' is not one of off, on");
        }
        String minText = source.get("store.governor.min");
        long min = minText == null ? storeMemoryBytes : Values.size("store.governor.min", minText);
        long max = Values.size("store.governor.max", or(source.get("store.governor.max"), "4g"));
        long step = Values.size("store.governor.step", or(source.get("store.governor.step"), "256m"));
        long reserve = Values.size("store.governor.reserve", or(source.get("store.governor.reserve"), "512m"));
        Duration interval = Values.duration("store.governor.interval",
                or(source.get("store.governor.interval"), "1s"));
        if (mode.equals("off")) {
            return null;
        }
        if (max < min) {
            throw new ConfigException("store.governor.max (" + max + " bytes) is below store.governor.min (" + min
                    + " bytes, " + (minText == null ? "from store.memory" : "as set") + ")");
        }
        requireWholeMib("store.governor.min", min, minText == null ? "; it defaults to store.memory" : "");
        requireWholeMib("store.governor.max", max, "");
        requireWholeMib("store.governor.step", step, "");
        if (step == 0) {
            throw new ConfigException("store.governor.step must be greater than zero");
        }
        if (interval.isZero()) {
            throw new ConfigException("store.governor.interval must be greater than zero");
        }
        try {
            return GovernorConfig.builder().minBudgetBytes(min).maxBudgetBytes(max).growStepBytes(step)
                    .shrinkStepBytes(step).reserveBytes(reserve).interval(interval).build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("store.governor.*: " + e.getMessage());
        }
    }

    private static void requireWholeMib(String name, long bytes, String hint) {
        if (bytes % (1 << 20) != 0) {
            throw new ConfigException(name + ": " + bytes + " bytes is not a whole number of MiB (the scale-up "
                    + "agent grants MiB)" + hint);
        }
    }

    /** Reads and validates every setting, then rejects names that no setting uses. */
    public static KeyServerConfig from(ConfigSource source) {
        KeyServerConfig config = new KeyServerConfig(source);
        source.rejectUnknown();
        return config;
    }

    /** The defaults, under {@code dataDir}. */
    public static KeyServerConfig defaults(Path dataDir) {
        try {
            return from(new ConfigSource(java.util.Map.of("data", dataDir.toString()), java.util.Map.of(), null));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Where the keys are kept: a directory for an ElasticStore (default {@code <data>/keys}) or a Redis URI (see
     * {@link Stores}); may hold a password, so log {@link Stores#describe} of it, never the string itself.
     */
    public String store() { return store; }

    /** The ElasticStore settings for the {@link #store()} directory (unused when it is a Redis URI). */
    public ElasticStoreConfig storeConfig() {
        return storeConfig(Stores.isRedis(store) ? dataDir.resolve("keys") : Path.of(store));
    }

    /** The ElasticStore settings for a key store in {@code directory}. */
    public ElasticStoreConfig storeConfig(Path directory) {
        return ElasticStoreConfig.builder(directory)
                .memoryBudgetBytes(storeMemoryBytes)
                .fsyncPolicy(storeFsync)
                .maxValueSize(64 * 1024)
                .averageValueSize(4096)
                .averageKeySize(34)
                // A key is one record plus up to three aliases (certificate SHA-1, Keyless SKI, modulus digest).
                .indexCapacity(ENTRIES_PER_KEY * expectedKeys)
                // The parsed-key cache is the hot tier and the hot-key file its warm start; a fill from disk at open
                // would walk every index entry (three per key), paced against the first minute's lookups.
                .loadOnOpen(false)
                // Nor would the store's location table pay for itself: 128 MiB at a million keys' four index entries
                // each, to save an index query on the cache's rare misses, each of which then parses a key.
                .locationTable(false)
                .build();
    }

    public Path dataDir() { return dataDir; }
    public InetSocketAddress listen() { return listen; }
    public InetSocketAddress adminListen() { return adminListen; }
    /** Where the Keyless endpoint listens, or {@code null} when {@code keyless.listen = off}. */
    public InetSocketAddress keylessListen() { return keylessListen; }
    /** Requests a Keyless connection may have in flight before the server stops reading from it. */
    public int keylessMaxInFlight() { return keylessMaxInFlight; }
    /** How long each session-ticket key the key server hands to edges is primary. */
    public Duration ticketRotation() { return ticketRotation; }
    public Path tlsCertificate() { return tlsCertificate; }
    public Path tlsKey() { return tlsKey; }
    public Path tlsClientCa() { return tlsClientCa; }
    /** The CRL file, or {@code null} when revocation is not checked. */
    public Path tlsCrl() { return tlsCrl; }
    public TlsProvider tlsProvider() { return tlsProvider; }
    public Duration reloadInterval() { return reloadInterval; }
    public Path policyFile() { return policyFile; }

    /**
     * Where the running server takes {@code keys} commands ({@code control.socket}, default
     * {@code <data>/keyserver.sock}); {@code null} when {@code off}.
     */
    public Path controlSocket() { return controlSocket; }

    /** Whether {@code control.socket} was set, rather than defaulted. */
    public boolean controlSocketGiven() { return controlSocketGiven; }
    /** Whether a layer named the policy file: then it must exist; only the default may be created ({@link #dev}). */
    public boolean policyGiven() { return policyGiven; }
    /**
     * {@code dev} ({@code keyserver --dev}): on a start with the development PKI and no file at the default policy
     * path, write a policy granting the development client every key. Off by default: an allow-all policy is never
     * written unasked.
     */
    public boolean dev() { return dev; }
    public Path kekFile() { return kekFile; }
    /** The memory the parsed-key cache may take, heap and native together; 0 when disabled. */
    public long keyCacheBytes() { return keyCacheBytes; }
    /** How long a starting server exercises its lookup-and-sign path before it reports ready; 0 skips it. */
    public Duration warmupExercise() { return warmupExercise; }
    /**
     * How long a starting server sends SKI requests to itself over loopback TLS, through the request pipeline,
     * before it reports ready; 0 skips it.
     */
    public Duration warmupRequests() { return warmupRequests; }
    /** How many keys the store's index is laid out for; it grows past this, more slowly. */
    public long expectedKeys() { return expectedKeys; }
    public long storeMemoryBytes() { return storeMemoryBytes; }
    public FsyncPolicy storeFsync() { return storeFsync; }
    /** Whether the memory governor runs ({@code store.governor = on}). */
    public boolean storeGovernor() { return governor != null; }
    /** The memory governor's settings; {@code null} when it is off. */
    public GovernorConfig governorConfig() { return governor; }
    /** The scale-up agent's socket, or {@code null} for the client's own default. */
    public Path scaleupSocket() { return scaleupSocket; }
    /** The name the agent keeps this server's grant under. */
    public String scaleupClient() { return scaleupClient; }
    /** The longest one call to the agent may take. */
    public Duration scaleupTimeout() { return scaleupTimeout; }
    public int maxBodyBytes() { return maxBodyBytes; }
    public int maxHeaderBytes() { return maxHeaderBytes; }
    public int maxConnections() { return maxConnections; }
    public int maxStreams() { return maxStreams; }
    public Duration handshakeTimeout() { return handshakeTimeout; }
    public Duration idleTimeout() { return idleTimeout; }
    public Duration requestDeadline() { return requestDeadline; }
    /**
     * How long a request may take to arrive, head and body, from its first byte: a client that trickles it is
     * answered 408 (HTTP/2: the stream, or the connection for a frame left unfinished) and closed.
     */
    public Duration requestRead() { return requestRead; }

    /**
     * Whether a key the caller is not granted is answered {@code 403 request denied} ({@code authz.denied-answer =
     * denied}) rather than {@code 404 spki not found} as for an unknown key (the default), which tells no client
     * what keys exist. The audit log and metrics record {@code request denied} either way.
     */
    public boolean revealDenied() { return revealDenied; }
    /** Event-loop threads for TLS, HTTP and JSON; crypto runs on {@link #cryptoWorkers()} threads. */
    public int ioThreads() { return ioThreads; }
    public int cryptoWorkers() { return cryptoWorkers; }
    public int cryptoQueue() { return cryptoQueue; }
    /**
     * Threads that load keys the parsed-key cache misses. More than the cores: a load waits for the disk when the
     * record is not in the page cache (60-145 ms here, measured with JFR), and two loaders stalled every miss of the
     * server behind two such reads.
     */
    public int keyLoaders() { return keyLoaders; }
    /** {@code auto}, {@code accp} or {@code jdk}. */
    public String cryptoProvider() { return cryptoProvider; }

    /**
     * {@code crypto.p256}: {@code native} (the default) signs P-256 keys from their bare scalar with the system's
     * libcrypto when the key server's JNI library loads, the provider otherwise; {@code provider} always uses the
     * provider's key objects.
     */
    public boolean nativeP256() { return nativeP256; }

    /**
     * {@code crypto.p256.nonces}: with P-256 signed natively, how many ECDSA nonces a thread at idle priority keeps
     * precomputed (0: none), so signatures on the request path skip the nine tenths of their work a nonce is.
     */
    public int p256Nonces() { return p256Nonces; }

    /**
     * {@code crypto.p256.inline}: a P-256 signature that finds a nonce made ahead is finished on the thread that
     * read the request (about a microsecond) instead of being handed to a crypto worker and back (two thread
     * wake-ups); without a nonce ready it goes to a worker either way.
     */
    public boolean p256Inline() { return p256Inline; }

    /** Whether the TLS files are the development PKI's defaults under the data directory. */
    public boolean usesDevelopmentPki() {
        Path pki = dataDir.resolve("pki");
        return tlsCertificate.equals(pki.resolve("server.pem")) && tlsKey.equals(pki.resolve("server.key"))
                && tlsClientCa.equals(pki.resolve("ca.pem"));
    }

    private static String storeLocation(String value, Path dataDir) {
        if (value == null) {
            return dataDir.resolve("keys").toString();
        }
        try {
            Stores.validate(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("store: " + e.getMessage());
        }
        return Stores.isRedis(value) ? value : Path.of(value).toAbsolutePath().normalize().toString();
    }

    private static String or(String value, String fallback) {
        return value != null ? value : fallback;
    }

    private static Path path(ConfigSource source, String name, Path fallback) {
        String value = source.get(name);
        return value == null ? fallback : Path.of(value).toAbsolutePath().normalize();
    }

    private static int intSize(ConfigSource source, String name, String fallback) {
        long bytes = Values.size(name, or(source.get(name), fallback));
        if (bytes < 256 || bytes > (1 << 24)) {
            throw new ConfigException(name + ": " + bytes + " bytes is outside 256 bytes to 16 MiB");
        }
        return (int) bytes;
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String name, String text) {
        try {
            return Enum.valueOf(type, text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            StringBuilder valid = new StringBuilder();
            for (E constant : type.getEnumConstants()) {
                valid.append(valid.length() == 0 ? "" : ", ").append(constant.name().toLowerCase(Locale.ROOT));
            }
            throw new ConfigException(name + ": '" + text + "' is not one of " + valid);
        }
    }
}
