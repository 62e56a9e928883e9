// ServerStats -- what Redis says about itself (DBSIZE, INFO memory), asked at most once per refresh interval.
package io.elastikey.store.redis;

import io.lettuce.core.RedisException;
import java.time.Duration;

/**
 * A cache of the server-side numbers in {@code stats()}: the key count ({@code DBSIZE}, only when the store has no
 * prefix), {@code used_memory} and {@code maxmemory} from {@code INFO memory} (Cluster: summed over masters).
 * Refreshed on demand, at most once per interval, also when the last attempt failed, so a metrics scrape against
 * a Redis that is down costs nothing; until the first answer the numbers are {@code -1}.
 */
final class ServerStats {
    /** One refresh's numbers; {@code -1} for unknown. */
    record Snapshot(long entries, long usedMemory, long maxMemory) {
    }

    private final RedisConnections connections;
    private final long refreshNanos;
    private final boolean countKeys;
    private Snapshot current = new Snapshot(-1, -1, -1);
    private long refreshedAt;
    private boolean refreshed;

    ServerStats(RedisConnections connections, Duration refresh, boolean countKeys) {
        this.connections = connections;
        this.refreshNanos = refresh.toNanos();
        this.countKeys = countKeys;
    }

    synchronized Snapshot current() {
        long now = System.nanoTime();
        if (!refreshed || now - refreshedAt >= refreshNanos) {
            refreshed = true;
            refreshedAt = now;
            try {
                current = read();
            } catch (RedisException e) {
                // Keep the last numbers: stats never fail, and the next interval asks again.
            }
        }
        return current;
    }

    private Snapshot read() {
        long used = 0;
        long max = 0;
        for (String info : connections.infoMemory()) {
            used += field(info, "used_memory");
            max += field(info, "maxmemory");
        }
        long entries = countKeys ? connections.sync().dbsize() : -1;
        return new Snapshot(entries, used, max);
    }

    /** The numeric value of {@code name:value} in INFO text, or 0 when absent. */
    static long field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).strip());
            }
        }
        return 0;
    }
}
