// StoreCommands -- GET, SET, DEL, EXISTS, MGET, DBSIZE and the ELASTIC.* commands against the store.
package io.elastikey.resp;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ResizeOperation;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The data commands. Runs on worker threads (the calls may block); thread-safe because the store
 * is. A GET copies the value once, from the store into a pooled direct buffer that becomes the
 * reply's content and is written to the socket as is.
 *
 * <p>SET accepts {@code EX seconds} and {@code PX milliseconds} and ignores them: the store keeps
 * no expiry. The other SET options (NX, XX, GET, KEEPTTL, EXAT, PXAT) are refused with an error
 * naming the option rather than half done.
 */
final class StoreCommands {
    private final KeyValueStore store;
    private final ByteBufAllocator alloc;

    StoreCommands(KeyValueStore store, ByteBufAllocator alloc) {
        this.store = store;
        this.alloc = alloc;
    }

    /** A SET with exactly a key and a value: the kind {@link CommandRunner} batches into one putAll. */
    static boolean isPlainSet(RespRequest r) {
        return r.command() == Command.SET && r.argc() == 3;
    }

    void putAll(List<Map.Entry<byte[], byte[]>> entries) {
        store.putAll(entries);
    }

    RedisMessage get(RespRequest r, ConnectionState conn) {
        return read(r.bytes(1), conn);
    }

    private RedisMessage read(byte[] key, ConnectionState conn) {
        int size = conn.valueSizeHint;
        while (true) {
            ByteBuf buf = alloc.directBuffer(size);
            int n;
            try {
                n = store.get(key, buf.internalNioBuffer(0, buf.capacity()));
            } catch (RuntimeException e) {
                buf.release();
                throw e;
            }
            if (n == KeyValueStore.NOT_FOUND) {
                buf.release();
                return Replies.NULL;
            }
            if (n <= buf.capacity()) {
                conn.valueSizeHint = Math.max(n, 16);
                return new FullBulkStringRedisMessage(buf.writerIndex(n));
            }
            buf.release();
            size = n; // too small: nothing was copied; retry with the size the store reported
        }
    }

    RedisMessage set(RespRequest r) {
        for (int i = 3; i < r.argc(); i++) {
            if (r.is(i, "EX") || r.is(i, "PX")) {
                if (i + 1 >= r.argc() || !positiveInteger(r.text(i + 1))) {
                    return i + 1 >= r.argc() ? Replies.error("ERR syntax error")
                            : Replies.error("ERR invalid expire time in 'set' command");
                }
                i++;
            } else if (r.is(i, "NX") || r.is(i, "XX") || r.is(i, "GET") || r.is(i, "KEEPTTL")
                    || r.is(i, "EXAT") || r.is(i, "PXAT")) {
                return Replies.error("ERR SET option '" + r.text(i).toUpperCase(java.util.Locale.ROOT)
                        + "' is not supported by this server (no conditional writes, no expiry)");
            } else {
                return Replies.error("ERR syntax error");
            }
        }
        store.put(r.bytes(1), r.bytes(2));
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

    RedisMessage mget(RespRequest r, ConnectionState conn) {
        List<RedisMessage> values = new ArrayList<>(r.argc() - 1);
        try {
            for (int i = 1; i < r.argc(); i++) {
                values.add(read(r.bytes(i), conn));
            }
        } catch (RuntimeException e) {
            values.forEach(io.netty.util.ReferenceCountUtil::release);
            throw e;
        }
        return new ArrayRedisMessage(values);
    }

    RedisMessage dbsize() {
        return Replies.integer(store.size());
    }

    RedisMessage resize(RespRequest r) {
        if (!(store instanceof ElasticStore elastic)) {
            return Replies.error("ERR ELASTIC.RESIZE needs an ElasticStore");
        }
        long bytes;
        try {
            bytes = Long.parseLong(r.text(1));
        } catch (NumberFormatException e) {
            return Replies.error("ERR value is not an integer or out of range");
        }
        elastic.resize(bytes);
        return Replies.OK;
    }

    RedisMessage stats() {
        StoreStats s = store.stats();
        StringBuilder b = new StringBuilder(512);
        line(b, "entries", s.entries());
        line(b, "disk_bytes", s.diskBytes());
        line(b, "memory_entries", s.memoryEntries());
        line(b, "memory_bytes", s.memoryBytes());
        line(b, "memory_budget_bytes", s.memoryBudgetBytes());
        line(b, "hits", s.hits());
        line(b, "misses", s.misses());
        b.append("hit_ratio:").append(String.format(java.util.Locale.ROOT, "%.4f", s.hitRatio())).append("\r\n");
        if (s.lookupLatencyNanos() != null && s.lookupLatencyNanos().getTotalCount() > 0) {
            line(b, "lookup_p50_us", s.lookupLatencyNanos().getValueAtPercentile(50) / 1000);
            line(b, "lookup_p99_us", s.lookupLatencyNanos().getValueAtPercentile(99) / 1000);
            line(b, "lookup_max_us", s.lookupLatencyNanos().getMaxValue() / 1000);
        }
        if (store instanceof ElasticStore elastic && elastic.lastResize() != null) {
            ResizeOperation op = elastic.lastResize();
            b.append("resize_state:").append(op.state()).append("\r\n");
            line(b, "resize_target_bytes", op.targetBytes());
            line(b, "resize_entries_moved", op.entriesMoved());
        }
        return Replies.bulk(b.toString());
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
