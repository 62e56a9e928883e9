// StoreCommands -- GET, SET, MSET, DEL, UNLINK, EXISTS, STRLEN, MGET, DBSIZE and the ELASTIC.* commands against the store.
package io.elastikey.resp;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResizeOperation;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * The data commands. Runs on worker threads (the calls may block); thread-safe because the store
 * is. A GET copies the value once, from the store straight into the batch's pooled direct reply
 * buffer, which goes to the socket as is.
 *
 * <p>SET checks an expiry and ignores it: the store keeps no expiry ({@link #set} says when it refuses one). Its
 * NX, XX and GET options, and the other commands whose write depends on the value before it, are
 * {@link UpdateCommands}.
 */
final class StoreCommands {
    private static final long FIVE_MS = TimeUnit.MILLISECONDS.toNanos(5);

    private final KeyValueStore store;
    private final ElasticStore elastic; // null: the store has no memory tier
    private final ResizeBounds resizeBounds;
    private final UpdateCommands updates;

    StoreCommands(KeyValueStore store, ResizeBounds resizeBounds, UpdateCommands updates) {
        this.store = store;
        this.elastic = store instanceof ElasticStore e ? e : null;
        this.resizeBounds = resizeBounds;
        this.updates = updates;
    }

    /** A SET with exactly a key and a value: the kind {@link CommandRunner} batches into one putAll. */
    static boolean isPlainSet(RespRequest r) {
        return r.command() == Command.SET && r.argc() == 3;
    }

    /** A plain SET's key and value, as putAll takes them. */
    static Map.Entry<byte[], byte[]> entryOf(RespRequest plainSet) {
        return Map.entry(plainSet.bytes(1), plainSet.bytes(2));
    }

    void putAll(List<Map.Entry<byte[], byte[]>> entries) {
        store.putAll(entries);
    }

    /**
     * {@link ElasticStore#putAllVisible}, which never waits for an fsync; {@link CommandRunner#ON_WORKER} for a store
     * without a local log (a remote Redis), whose every write is a network round trip.
     */
    long putAllVisible(List<Map.Entry<byte[], byte[]>> entries) {
        return elastic == null ? CommandRunner.ON_WORKER : elastic.putAllVisible(entries);
    }

    /**
     * {@link ElasticStore#whenDurable}: {@code then} runs at once, or later on the log's syncer thread. Only for a
     * ticket {@link #putAllVisible} gave, which only an ElasticStore does.
     */
    void whenDurable(long ticket, Consumer<RuntimeException> then) {
        elastic.whenDurable(ticket, then);
    }

    /** Appends GET's reply to {@code out}. */
    void get(RespRequest r, ByteBuf out, ConnectionState conn) {
        read(r.bytes(1), out, conn, false);
    }

    /**
     * On the event loop: appends GET's reply and returns true when the value is in the store's
     * memory tier ({@link ElasticStore#getIfInMemory}: no disk read, no blocking); otherwise appends
     * nothing and returns false.
     */
    boolean getFromMemory(RespRequest r, ByteBuf out, ConnectionState conn) {
        return elastic != null && read(r.bytes(1), out, conn, true);
    }

    /**
     * The largest MGET reply built: 64 MiB. Redis builds whatever it is asked for; here a request of 36 bytes per key
     * could otherwise make the server assemble 65,535 values of 1 MiB, 64 GiB, in one buffer.
     */
    static final int MAX_MGET_REPLY_BYTES = 64 << 20;

    /**
     * Appends MGET's reply to {@code out}.
     *
     * @throws IllegalArgumentException when the values asked for come to more than {@link #MAX_MGET_REPLY_BYTES}
     *         (answered as {@code -ERR MGET reply larger than ...})
     */
    void mget(RespRequest r, ByteBuf out, ConnectionState conn) {
        int start = out.writerIndex();
        try {
            ReplyEncoder.header(out, '*', r.argc() - 1);
            for (int i = 1; i < r.argc(); i++) {
                read(r.bytes(i), out, conn, false);
                if (out.writerIndex() - start > MAX_MGET_REPLY_BYTES) {
                    throw new IllegalArgumentException("MGET reply larger than " + MAX_MGET_REPLY_BYTES
                            + " bytes after " + i + " of " + (r.argc() - 1) + " keys; ask for fewer keys at once");
                }
            }
        } catch (RuntimeException e) {
            out.writerIndex(start); // no half reply: the caller answers with an error instead
            throw e;
        }
    }

    /**
     * Appends {@code $<n>\r\n<value>\r\n} (or the null bulk string) to {@code out}, copying the
     * value from the store straight into place. The header's length depends on the value's, which
     * is known only after the read: the value goes where a header for the last size read on this
     * connection would end, and moves in the rare case the size has a different number of digits.
     * With {@code memoryOnly}, returns false (nothing appended) when the value is not in memory.
     */
    private boolean read(byte[] key, ByteBuf out, ConnectionState conn, boolean memoryOnly) {
        int expected = conn.valueSizeHint;
        while (true) {
            int headerLen = 3 + ReplyEncoder.digits(expected);
            ensureRoom(out, headerLen + expected + 2);
            int start = out.writerIndex();
            int room = out.capacity() - start - headerLen - 2;
            java.nio.ByteBuffer dst = out.internalNioBuffer(start + headerLen, room);
            int n = memoryOnly ? elastic.getIfInMemory(key, dst) : store.get(key, dst);
            if (n == ElasticStore.NOT_IN_MEMORY) {
                return false;
            }
            if (n == KeyValueStore.NOT_FOUND) {
                ReplyEncoder.nullBulk(out);
                return true;
            }
            if (n > room) {
                expected = n; // nothing was copied: make room and read again
                continue;
            }
            int actualHeader = 3 + ReplyEncoder.digits(n);
            if (actualHeader != headerLen) {
                byte[] value = new byte[n];
                out.getBytes(start + headerLen, value);
                out.setBytes(start + actualHeader, value);
            }
            ReplyEncoder.header(out, '$', n);
            out.writerIndex(start + actualHeader + n);
            ReplyEncoder.crlf(out);
            conn.valueSizeHint = Math.max(n, 16);
            return true;
        }
    }

    /**
     * Makes room for {@code bytes} more, at least doubling the buffer when it grows: Netty's own growth steps by
     * 4 MiB past 4 MiB, and an MGET of many large values copied its whole reply again at every step (160 values of
     * 1 MiB took 3.7 s, a quarter of that 0.9 s).
     */
    private static void ensureRoom(ByteBuf out, int bytes) {
        if (out.writableBytes() < bytes) {
            out.ensureWritable(Math.max(bytes, out.capacity()));
        }
    }

    /**
     * SET and its options. {@code NX}, {@code XX} and {@code GET} make it an update ({@link UpdateCommands#set}). An
     * expiry ({@code EX}, {@code PX}, {@code EXAT}, {@code PXAT}, {@code KEEPTTL}) is checked and ignored on a plain
     * SET; with NX, XX or GET it is refused: {@code SET lock token NX EX 30} is a lock that must expire, and one that
     * never does is worse than an error.
     */
    RedisMessage set(RespRequest r) {
        String expiry = null;
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        for (int i = 3; i < r.argc(); i++) {
            if (r.is(i, "EX") || r.is(i, "PX") || r.is(i, "EXAT") || r.is(i, "PXAT") || r.is(i, "KEEPTTL")) {
                boolean keep = r.is(i, "KEEPTTL");
                if (expiry != null || (!keep && i + 1 >= r.argc())) {
                    return Replies.error("ERR syntax error"); // one expiry at most, as Redis says
                }
                expiry = r.text(i).toUpperCase(java.util.Locale.ROOT);
                if (!keep && !positiveInteger(r.text(++i))) {
                    return Replies.error("ERR invalid expire time in 'set' command");
                }
            } else if (r.is(i, "NX") && !xx) {
                nx = true;
            } else if (r.is(i, "XX") && !nx) {
                xx = true;
            } else if (r.is(i, "GET")) {
                get = true;
            } else {
                return Replies.error("ERR syntax error");
            }
        }
        if (nx || xx || get) {
            if (expiry != null) {
                return Replies.error("ERR SET with " + expiry + " and NX, XX or GET is not supported: this server "
                        + "keeps no expiry, and a lock that never expires is worse than an error");
            }
            return updates.set(r.bytes(1), r.bytes(2), nx, xx, get);
        }
        store.put(r.bytes(1), r.bytes(2));
        return Replies.OK;
    }

    /**
     * {@code MSET key value [key value ...]}: one {@code putAll}, which checks every entry against the store's limits
     * before it writes any, so an MSET is written whole or not at all; {@code +OK} once it is as durable as a SET.
     */
    RedisMessage mset(RespRequest r) {
        if (r.argc() % 2 == 0) {
            return Replies.wrongArity(Command.MSET);
        }
        List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(r.argc() / 2);
        for (int i = 1; i < r.argc(); i += 2) {
            entries.add(Map.entry(r.bytes(i), r.bytes(i + 1)));
        }
        store.putAll(entries);
        return Replies.OK;
    }

    private static boolean positiveInteger(String s) {
        try {
            return Long.parseLong(s) > 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    RedisMessage del(RespRequest r) {
        long n = 0;
        for (int i = 1; i < r.argc(); i++) {
            if (store.delete(r.bytes(i))) {
                n++;
            }
        }
        return Replies.integer(n);
    }

    RedisMessage exists(RespRequest r) {
        long n = 0;
        for (int i = 1; i < r.argc(); i++) {
            if (store.contains(r.bytes(i))) {
                n++;
            }
        }
        return Replies.integer(n);
    }

    /** STRLEN: the value's length in bytes, 0 for an absent key. */
    RedisMessage strlen(RespRequest r) {
        byte[] v = store.get(r.bytes(1));
        return Replies.integer(v == null ? 0 : v.length);
    }

    RedisMessage dbsize() {
        return Replies.integer(store.size());
    }

    /**
     * ELASTIC.RESIZE: the size is read strictly ({@link Sizes}) and must lie within the
     * {@link ResizeBounds}; anything else is a one-line error and the store is left alone.
     */
    RedisMessage resize(RespRequest r) {
        if (elastic == null) {
            return Replies.error("ERR ELASTIC.RESIZE needs an ElasticStore");
        }
        long bytes = r.bytes(1).length > 20 ? -1 : Sizes.parse(r.text(1));
        if (bytes < 0) {
            return Replies.error("ERR value is not an integer or out of range (ELASTIC.RESIZE takes bytes, or a "
                    + "size such as 512m or 2g)");
        }
        String problem = resizeBounds.problem(bytes, store.stats().memoryBudgetBytes());
        if (problem != null) {
            return Replies.error("ERR ELASTIC.RESIZE refused: " + problem);
        }
        elastic.resize(bytes);
        return Replies.OK;
    }

    RedisMessage stats() {
        ResizeOperation last = elastic != null ? elastic.lastResize() : null;
        return Replies.bulk(statsText(store.stats(), last,
                elastic != null ? new ElasticCounters(elastic.locationTableBytes(), elastic.logFsyncs()) : null));
    }

    /** What only an ElasticStore reports: the memory it spends beside its budget, and its log's fsyncs so far. */
    record ElasticCounters(long locationTableBytes, long logFsyncs) {}

    /**
     * ELASTIC.STATS's text. {@code lookups_over_5ms} counts lookups slower than the report's KPI since the store
     * opened; two readings around a run give that run's count, which the p99 and max cannot.
     * {@code location_table_bytes} is the memory an ElasticStore spends beside its budget to find records on disk;
     * {@code log_fsyncs} over the SETs answered between two readings is how many writes an fsync covered (group
     * commit). {@code elastic} is null for another store: neither line.
     */
    static String statsText(StoreStats s, ResizeOperation last, ElasticCounters elastic) {
        StringBuilder b = new StringBuilder(512);
        line(b, "entries", s.entries());
        line(b, "disk_bytes", s.diskBytes());
        line(b, "memory_entries", s.memoryEntries());
        line(b, "memory_bytes", s.memoryBytes());
        line(b, "memory_budget_bytes", s.memoryBudgetBytes());
        if (elastic != null) {
            line(b, "location_table_bytes", elastic.locationTableBytes());
            line(b, "log_fsyncs", elastic.logFsyncs());
        }
        line(b, "hits", s.hits());
        line(b, "misses", s.misses());
        b.append("hit_ratio:").append(String.format(java.util.Locale.ROOT, "%.4f", s.hitRatio())).append("\r\n");
        Histogram latency = s.lookupLatencyNanos();
        if (latency != null && latency.getTotalCount() > 0) {
            line(b, "lookup_p50_us", latency.getValueAtPercentile(50) / 1000);
            line(b, "lookup_p99_us", latency.getValueAtPercentile(99) / 1000);
            line(b, "lookup_p999_us", latency.getValueAtPercentile(99.9) / 1000);
            line(b, "lookup_max_us", latency.getMaxValue() / 1000);
            line(b, "lookups_over_5ms", latency.getTotalCount() - latency.getCountBetweenValues(0, FIVE_MS));
        }
        if (last != null) {
            b.append("resize_state:").append(last.state()).append("\r\n");
            line(b, "resize_target_bytes", last.targetBytes());
            line(b, "resize_entries_moved", last.entriesMoved());
        }
        return b.toString();
    }

    private static void line(StringBuilder b, String name, long value) {
        b.append(name).append(':').append(value).append("\r\n");
    }

    /** The error reply for a failed store call: the limit's message, or the store's. */
    static RedisMessage storeError(RuntimeException e) {
        String m = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return Replies.error(e instanceof IllegalArgumentException ? "ERR " + m : "ERR store: " + m);
    }
}
