// RedisStore -- a KeyValueStore in Redis (standalone, Sentinel or Cluster) through Lettuce.
package io.elastikey.store.redis;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreException;
import io.elastikey.store.StoreStats;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link KeyValueStore} whose entries are Redis strings: {@code GET}, {@code SET}, {@code DEL}, {@code EXISTS},
 * each key prefixed with the configured namespace so several stores can share one Redis.
 *
 * <p>Durability is Redis's: {@code put} returns when the server acknowledged the write, and what survives a Redis
 * restart depends on its persistence settings. {@code putAll} pipelines: it writes {@code batch} {@code SET}s to a
 * connection of its own, flushes them at once and waits for their answers, so a bulk load costs one round trip per
 * batch rather than per key. Entries are written in order (a Cluster routes each key to its master; one key's
 * writes stay in order) and each atomically; a failure may keep a prefix, as the interface allows.
 *
 * <p>{@code size()} is {@code DBSIZE} (summed over Cluster masters) without a prefix, and a {@code SCAN} count of
 * the prefix otherwise, the store's change log ({@link ChangeLog}) left out of both: one round trip per
 * {@code scanCount} keys of the whole database, so it costs as much as {@code forEach} without the values. {@code forEach} walks {@code SCAN MATCH prefix*} (every master of a
 * Cluster) and reads each page's values with one {@code MGET}; SCAN's guarantees make it weakly consistent.
 *
 * <p>Failures: every Redis error, a refused connection, a command rejected while disconnected and a command timed
 * out become a {@link StoreException} naming the URI without its password. A Redis that is down answers within
 * the command timeout at most (usually at once: commands are rejected while disconnected); the store reconnects
 * by itself when Redis is back.
 */
public final class RedisStore implements KeyValueStore {
    private static final Logger log = LoggerFactory.getLogger(RedisStore.class);
    private static final long PING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisStoreConfig config;
    private final byte[] prefix;
    private final byte[] matchPrefix;
    private final RedisConnections connections;
    private final ChangeLog changeLog;
    private final LookupRecorder lookups = new LookupRecorder();
    private final ServerStats serverStats;
    private final Object batchLock = new Object();
    private volatile boolean closed;
    private volatile boolean lastPingOk = true;
    private volatile long lastPingNanos = System.nanoTime();

    private RedisStore(RedisStoreConfig config, RedisConnections connections) {
        this.config = config;
        this.prefix = config.prefix();
        this.matchPrefix = globEscape(prefix);
        this.connections = connections;
        this.changeLog = new ChangeLog(prefix);
        this.serverStats = new ServerStats(connections, config.statsRefresh(), prefix.length == 0);
    }

    /**
     * Connects to the Redis {@code config} names.
     *
     * @throws StoreException when Redis cannot be reached or refuses the credentials within the timeouts
     */
    public static RedisStore open(RedisStoreConfig config) {
        RedisConnections connections;
        try {
            connections = connect(config);
        } catch (RedisException e) {
            throw new StoreException("cannot connect to Redis " + config.uri() + ": " + reason(e), e);
        }
        log.info("key-value store: Redis {} ({}, prefix '{}')", config.uri(), config.uri().mode(),
                new String(config.prefix(), StandardCharsets.UTF_8));
        return new RedisStore(config, connections);
    }

    /**
     * Connects once more when Lettuce lost the race between a server that refuses the handshake (NOAUTH, WRONGPASS)
     * and its own pipeline set-up: it then reports "RedisHandshakeHandler not registered" instead of the server's
     * answer, and the second attempt gets the answer an operator can act on. Seen once in six full test runs.
     */
    private static RedisConnections connect(RedisStoreConfig config) {
        try {
            return new RedisConnections(config);
        } catch (RedisException e) {
            if (!reason(e).contains("RedisHandshakeHandler not registered")) {
                throw e;
            }
            return new RedisConnections(config);
        }
    }

    /** Connects to the Redis {@code location} names (see {@link RedisStoreConfig#parse}). */
    public static RedisStore open(String location) {
        return open(RedisStoreConfig.parse(location));
    }

    public RedisStoreConfig config() {
        return config;
    }

    @Override
    public byte[] get(byte[] key) {
        byte[] k = key(key);
        long start = System.nanoTime();
        byte[] value = call("GET", () -> connections.sync().get(k));
        lookups.record(value != null, start);
        return value;
    }

    @Override
    public int get(byte[] key, ByteBuffer dst) {
        byte[] value = get(key);
        if (value == null) {
            return NOT_FOUND;
        }
        if (value.length <= dst.remaining()) {
            dst.put(value);
        }
        return value.length;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        byte[] k = key(key);
        checkValue(value);
        byte[] v = value.clone(); // a timed-out command may still sit in a buffer: never let it hold the caller's array
        call("SET", () -> connections.sync().set(k, v));
    }

    @Override
    public void putAll(List<? extends Map.Entry<byte[], byte[]>> entries) {
        List<byte[]> keys = new ArrayList<>(entries.size());
        for (Map.Entry<byte[], byte[]> e : entries) {
            keys.add(key(e.getKey()));
            checkValue(e.getValue());
        }
        synchronized (batchLock) {
            checkOpen();
            for (int from = 0; from < keys.size(); from += config.batchSize()) {
                int to = Math.min(keys.size(), from + config.batchSize());
                writeBatch(keys.subList(from, to), entries.subList(from, to));
            }
        }
    }

    /** Writes one batch of SETs without flushing between them, then waits for every answer. */
    private void writeBatch(List<byte[]> keys, List<? extends Map.Entry<byte[], byte[]>> entries) {
        List<RedisFuture<String>> answers = new ArrayList<>(keys.size());
        call("SET (batch)", () -> {
            RedisClusterAsyncCommands<byte[], byte[]> batch = connections.batch();
            for (int i = 0; i < keys.size(); i++) {
                // Encoded when flushed; after a timeout a command may still be queued: keep no caller's array.
                answers.add(batch.set(keys.get(i), entries.get(i).getValue().clone()));
            }
            connections.flushBatch();
            return null;
        });
        long deadline = System.nanoTime() + config.commandTimeout().toNanos();
        for (RedisFuture<String> answer : answers) {
            call("SET (batch of " + keys.size() + ")",
                    () -> RedisConnections.await(answer, deadline - System.nanoTime()));
        }
    }

    @Override
    public boolean delete(byte[] key) {
        byte[] k = key(key);
        return call("DEL", () -> connections.sync().del(k)) > 0;
    }

    @Override
    public boolean contains(byte[] key) {
        byte[] k = key(key);
        return call("EXISTS", () -> connections.sync().exists(k)) > 0;
    }

    /**
     * The number of keys: {@code DBSIZE} (Cluster: summed over masters) without a prefix; with one, a {@code SCAN}
     * over the whole database counting the prefix's keys, which costs one round trip per {@code scanCount} keys.
     */
    @Override
    public long size() {
        if (prefix.length == 0) {
            return call("DBSIZE", () -> connections.sync().dbsize() - connections.sync().exists(changeLog.key()));
        }
        long[] count = {0};
        scan((keys) -> count[0] += keys.size());
        return count[0];
    }

    @Override
    public void forEach(BiConsumer<byte[], byte[]> visitor) {
        scan(keys -> {
            List<KeyValue<byte[], byte[]>> values = call("MGET", () -> connections.sync().mget(keys.toArray(new byte[0][])));
            for (KeyValue<byte[], byte[]> kv : values) {
                if (kv.hasValue()) {
                    visitor.accept(Arrays.copyOfRange(kv.getKey(), prefix.length, kv.getKey().length), kv.getValue());
                }
            }
        });
    }

    /** Hands each non-empty page of {@code SCAN MATCH prefix*} to {@code page}, on every Cluster master. */
    private void scan(java.util.function.Consumer<List<byte[]>> page) {
        ScanArgs args = ScanArgs.Builder.limit(config.scanCount());
        if (prefix.length > 0) {
            byte[] pattern = Arrays.copyOf(matchPrefix, matchPrefix.length + 1);
            pattern[matchPrefix.length] = '*';
            args.match(pattern);
        }
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            ScanCursor from = cursor;
            KeyScanCursor<byte[]> result = call("SCAN", () -> connections.sync().scan(from, args));
            List<byte[]> keys = new ArrayList<>(result.getKeys());
            keys.removeIf(key -> Arrays.equals(key, changeLog.key()));
            if (!keys.isEmpty()) {
                page.accept(keys);
            }
            cursor = result;
        } while (!cursor.isFinished());
    }

    @Override
    public int maxValueSize() {
        return config.maxValueSize();
    }

    /**
     * Entries from {@code DBSIZE} ({@code -1} with a prefix: counting would scan, see {@link #size()}); memory from
     * {@code INFO memory} ({@code used_memory}, summed over Cluster masters) and the budget from its
     * {@code maxmemory} (0: no limit). Both are cached for {@code statsRefresh} and are {@code -1} while Redis has
     * not answered. Every entry is in memory; there are no disk bytes of ours. Hits and misses count {@code get}s
     * that found or did not find their key; the histogram holds their round-trip times. Never throws.
     */
    @Override
    public StoreStats stats() {
        ServerStats.Snapshot server = serverStats.current();
        return new StoreStats(server.entries(), -1, server.entries(), server.usedMemory(), server.maxMemory(),
                lookups.hits(), lookups.misses(), lookups.latencyCopy());
    }

    /**
     * Whether Redis answers: the shared connection is up and the last {@code PING} (sent at most once a second,
     * in the background, never waited for) succeeded. Cheap enough for every readiness probe.
     */
    @Override
    public boolean available() {
        if (closed || !connections.isConnected()) {
            return false;
        }
        long now = System.nanoTime();
        if (now - lastPingNanos > PING_INTERVAL_NANOS) {
            lastPingNanos = now;
            try {
                connections.async().ping().whenComplete((pong, error) -> lastPingOk = error == null);
            } catch (RedisException e) {
                lastPingOk = false;
            }
        }
        return lastPingOk;
    }

    /**
     * {@code XADD} to the store's change log ({@link ChangeLog}), which every {@link #follow} of the prefix reads,
     * the ones whose connection is down included once it is back.
     */
    @Override
    public void announce(byte[] notice) {
        call("XADD", () -> connections.sync().xadd(changeLog.key(), changeLog.trimming(), ChangeLog.entry(notice)));
    }

    /**
     * Reads the change log on a connection of its own from its newest entry on ({@link ChangeFollower}); a follower
     * whose connection was lost reads on from where it was, and hears {@link ChangeListener#missedSome} only when
     * the log no longer holds that place.
     */
    @Override
    public AutoCloseable follow(ChangeListener listener) {
        checkOpen();
        try {
            return ChangeFollower.start(connections, changeLog, listener, config.commandTimeout());
        } catch (RedisException e) {
            throw failure("following the change log", e);
        }
    }

    @Override
    public void close() {
        synchronized (batchLock) {
            if (closed) {
                return;
            }
            closed = true;
            connections.close();
        }
    }

    @Override
    public String toString() {
        return "RedisStore[" + config.uri() + "]";
    }

    private byte[] key(byte[] key) {
        if (key.length == 0 || key.length > config.maxKeySize()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is outside the store's limit of 1 to "
                    + config.maxKeySize() + " bytes (maxKeySize)");
        }
        if (ChangeLog.isReserved(key)) {
            throw new IllegalArgumentException("the key '" + changeLog + "' is the store's change log, not an entry");
        }
        byte[] k = Arrays.copyOf(prefix, prefix.length + key.length);
        System.arraycopy(key, 0, k, prefix.length, key.length);
        return k;
    }

    private void checkValue(byte[] value) {
        if (value.length > config.maxValueSize()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the store's "
                    + "maxValueSize limit of " + config.maxValueSize() + " bytes");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store on Redis " + config.uri() + " is closed");
        }
    }

    private <T> T call(String command, java.util.function.Supplier<T> body) {
        checkOpen();
        try {
            return body.get();
        } catch (RedisException e) {
            throw failure(command, e);
        }
    }

    private StoreException failure(String command, RuntimeException e) {
        return new StoreException("Redis " + config.uri() + ": " + command + " failed: " + reason(e), e);
    }

    /** {@code e}'s message, followed by its innermost cause's when that differs ("Connection refused", "WRONGPASS"). */
    static String reason(Throwable e) {
        String outer = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String inner = null;
        for (Throwable t = e.getCause(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                inner = t.getMessage();
            }
        }
        return inner == null || outer.contains(inner) ? outer : outer + ": " + inner;
    }

    /** {@code bytes} with the SCAN glob's special characters escaped. */
    private static byte[] globEscape(byte[] bytes) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(bytes.length + 4);
        for (byte b : bytes) {
            if (b == '*' || b == '?' || b == '[' || b == ']' || b == '\\') {
                out.write('\\');
            }
            out.write(b);
        }
        return out.toByteArray();
    }
}
