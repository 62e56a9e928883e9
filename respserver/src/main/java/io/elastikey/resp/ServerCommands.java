// ServerCommands -- PING, ECHO, INFO, CONFIG GET, COMMAND, QUIT, SELECT, CLIENT, HELLO (with its AUTH), SHUTDOWN.
package io.elastikey.resp;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreStats;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commands clients send to find out whom they talk to. They answer what redis-cli,
 * redis-benchmark and Lettuce need to start: INFO with the sections they read ({@code server},
 * {@code clients}, {@code memory}, {@code persistence}, {@code stats}, {@code replication},
 * {@code keyspace}), CONFIG GET for a fixed set of parameters, an empty COMMAND reply, and HELLO
 * for protocol 2 only: {@code HELLO 3} gets {@code -NOPROTO}, after which Lettuce goes on in RESP2.
 * HELLO's {@code AUTH username password} option authenticates through {@link AccessControl}; an
 * unauthenticated HELLO without it gets {@code -NOAUTH} where a password is required, as in Redis 7.
 * SHUTDOWN starts what the server's owner gave it ({@link RespOptions.Builder#shutdown}), or is refused.
 */
final class ServerCommands {
    /** The Redis version announced; the command subset is that of Redis 7.0 for these commands. */
    static final String REDIS_VERSION = "7.0.0";
    private static final Logger LOG = LoggerFactory.getLogger(ServerCommands.class);

    private final KeyValueStore store;
    private final IntSupplier port;
    private final IntSupplier connections;
    private final AccessControl access;
    private final Runnable shutdown;
    private final long startMillis = System.currentTimeMillis();

    ServerCommands(KeyValueStore store, IntSupplier port, IntSupplier connections, AccessControl access,
                   Runnable shutdown) {
        this.store = store;
        this.port = port;
        this.connections = connections;
        this.access = access;
        this.shutdown = shutdown;
    }

    RedisMessage run(Command c, RespRequest r, ConnectionState conn) {
        return switch (c) {
            case PING -> r.argc() == 1 ? Replies.PONG
                    : r.argc() == 2 ? Replies.bulk(r.text(1)) : Replies.wrongArity(c);
            case ECHO -> new io.netty.handler.codec.redis.FullBulkStringRedisMessage(
                    io.netty.buffer.Unpooled.wrappedBuffer(r.bytes(1)));
            case QUIT -> Replies.OK;
            case SELECT -> r.is(1, "0") ? Replies.OK : Replies.error("ERR DB index is out of range");
            case INFO -> Replies.bulk(info(r.argc() > 1 ? r.text(1).toLowerCase(Locale.ROOT) : "default"));
            case CONFIG -> config(r);
            case COMMAND -> r.argc() > 1 && r.is(1, "COUNT") ? Replies.integer(0) : Replies.EMPTY_ARRAY;
            case CLIENT -> client(r, conn);
            case HELLO -> hello(r, conn);
            default -> throw new IllegalStateException("not a server command: " + c);
        };
    }

    /**
     * {@code SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]}, Redis's syntax: null once the shutdown has started, the connection
     * then closing unanswered as Redis's does; else the error. SAVE and NOSAVE change nothing here: every answered SET
     * is already in the log, and closing the store writes a checkpoint either way, which only makes the next start
     * quicker. {@code ABORT} has nothing to abort: a shutdown, once started, is not waiting for anything.
     */
    RedisMessage shutdown(RespRequest r, ConnectionState conn) {
        boolean save = false;
        boolean noSave = false;
        for (int i = 1; i < r.argc(); i++) {
            if (r.is(i, "ABORT") && r.argc() == 2) {
                return Replies.error("ERR No shutdown in progress.");
            } else if (r.is(i, "SAVE")) {
                save = true;
            } else if (r.is(i, "NOSAVE")) {
                noSave = true;
            } else if (!r.is(i, "NOW") && !r.is(i, "FORCE")) {
                return Replies.error("ERR syntax error");
            }
        }
        if (save && noSave) {
            return Replies.error("ERR syntax error");
        }
        if (shutdown == null) {
            return Replies.error("ERR SHUTDOWN is not available: this server runs inside another program, which "
                    + "decides when it stops");
        }
        LOG.warn("SHUTDOWN from connection {} (user {}): closing the server, then the store", conn.id,
                conn.user.name());
        shutdown.run();
        return null;
    }

    private RedisMessage config(RespRequest r) {
        if (!r.is(1, "GET") || r.argc() < 3) {
            return r.is(1, "GET") ? Replies.error("ERR wrong number of arguments for 'config|get' command")
                    : Replies.error("ERR CONFIG " + r.text(1) + " is not supported by this server");
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("save", "");
        params.put("appendonly", "no");
        params.put("databases", "1");
        params.put("maxmemory", Long.toString(store.stats().memoryBudgetBytes()));
        params.put("proto-max-bulk-len", Integer.toString(store.maxValueSize()));
        params.put("port", Integer.toString(port.getAsInt()));
        List<String> out = new ArrayList<>();
        for (int i = 2; i < r.argc(); i++) {
            Pattern p = glob(r.text(i));
            params.forEach((k, v) -> {
                if (p.matcher(k).matches() && !out.contains(k)) {
                    out.add(k);
                    out.add(v);
                }
            });
        }
        return Replies.bulkArray(out);
    }

    private static Pattern glob(String glob) {
        StringBuilder re = new StringBuilder();
        for (char ch : glob.toLowerCase(Locale.ROOT).toCharArray()) {
            re.append(ch == '*' ? ".*" : ch == '?' ? "." : Pattern.quote(String.valueOf(ch)));
        }
        return Pattern.compile(re.toString());
    }

    private RedisMessage client(RespRequest r, ConnectionState conn) {
        if (r.is(1, "SETNAME") && r.argc() == 3) {
            conn.name = r.text(2);
            return Replies.OK;
        }
        if (r.is(1, "GETNAME")) {
            String name = conn.name;
            return name == null ? Replies.NULL : Replies.bulk(name);
        }
        if (r.is(1, "ID")) {
            return Replies.integer(conn.id);
        }
        if (r.is(1, "SETINFO")) { // Lettuce 6.3+ and redis-py announce their library name and version
            return Replies.OK;
        }
        return Replies.error("ERR CLIENT " + r.text(1) + " is not supported by this server");
    }

    private RedisMessage hello(RespRequest r, ConnectionState conn) {
        if (r.argc() > 1 && !r.is(1, "2")) {
            return Replies.error("NOPROTO this server speaks RESP2 only");
        }
        String name = null;
        int auth = -1;
        for (int i = 2; i < r.argc(); i++) {
            if (r.is(i, "SETNAME") && i + 1 < r.argc()) {
                name = r.text(++i);
            } else if (r.is(i, "AUTH") && i + 2 < r.argc()) {
                auth = i;
                i += 2;
            } else {
                return Replies.error("ERR Syntax error in HELLO option '" + r.text(i) + "'");
            }
        }
        if (auth > 0) {
            RedisMessage refused = access.authenticate(r.text(auth + 1), r.bytes(auth + 2), conn);
            if (refused != null) {
                return refused;
            }
        } else if (conn.user == null) {
            return Replies.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                    + "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select "
                    + "the RESP protocol version at the same time");
        }
        if (name != null) {
            conn.name = name;
        }
        List<RedisMessage> reply = new ArrayList<>();
        reply.add(Replies.bulk("server"));
        reply.add(Replies.bulk("redis"));
        reply.add(Replies.bulk("version"));
        reply.add(Replies.bulk(REDIS_VERSION));
        reply.add(Replies.bulk("proto"));
        reply.add(Replies.integer(2));
        reply.add(Replies.bulk("id"));
        reply.add(Replies.integer(conn.id));
        reply.add(Replies.bulk("mode"));
        reply.add(Replies.bulk("standalone"));
        reply.add(Replies.bulk("role"));
        reply.add(Replies.bulk("master"));
        reply.add(Replies.bulk("modules"));
        reply.add(Replies.EMPTY_ARRAY);
        return new io.netty.handler.codec.redis.ArrayRedisMessage(reply);
    }

    /** INFO's text for {@code section}: default/all/everything, or one section by name. */
    String info(String section) {
        boolean all = section.equals("default") || section.equals("all") || section.equals("everything");
        StoreStats s = store.stats();
        StringBuilder b = new StringBuilder(1024);
        if (all || section.equals("server")) {
            b.append("# Server\r\n");
            kv(b, "redis_version", REDIS_VERSION);
            kv(b, "redis_mode", "standalone");
            kv(b, "server_name", "elastikey-resp");
            kv(b, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                    + System.getProperty("os.arch"));
            kv(b, "arch_bits", "64");
            kv(b, "process_id", Long.toString(ProcessHandle.current().pid()));
            kv(b, "tcp_port", Integer.toString(port.getAsInt()));
            long up = (System.currentTimeMillis() - startMillis) / 1000;
            kv(b, "uptime_in_seconds", Long.toString(up));
            kv(b, "uptime_in_days", Long.toString(up / 86400));
            b.append("\r\n");
        }
        if (all || section.equals("clients")) {
            b.append("# Clients\r\n");
            kv(b, "connected_clients", Integer.toString(connections.getAsInt()));
            b.append("\r\n");
        }
        if (all || section.equals("memory")) {
            b.append("# Memory\r\n");
            kv(b, "used_memory", Long.toString(s.memoryBytes()));
            kv(b, "maxmemory", Long.toString(s.memoryBudgetBytes()));
            kv(b, "maxmemory_policy", "noeviction");
            b.append("\r\n");
        }
        if (all || section.equals("persistence")) {
            b.append("# Persistence\r\n");
            kv(b, "loading", "0");
            kv(b, "rdb_bgsave_in_progress", "0");
            kv(b, "aof_enabled", "0");
            b.append("\r\n");
        }
        if (all || section.equals("stats")) {
            b.append("# Stats\r\n");
            kv(b, "keyspace_hits", Long.toString(s.hits()));
            kv(b, "keyspace_misses", Long.toString(s.misses()));
            b.append("\r\n");
        }
        if (all || section.equals("replication")) {
            b.append("# Replication\r\n");
            kv(b, "role", "master");
            kv(b, "connected_slaves", "0");
            b.append("\r\n");
        }
        if (all || section.equals("keyspace")) {
            b.append("# Keyspace\r\n");
            if (s.entries() > 0) {
                kv(b, "db0", "keys=" + s.entries() + ",expires=0,avg_ttl=0");
            }
            b.append("\r\n");
        }
        return b.toString();
    }

    private static void kv(StringBuilder b, String k, String v) {
        b.append(k).append(':').append(v).append("\r\n");
    }
}
