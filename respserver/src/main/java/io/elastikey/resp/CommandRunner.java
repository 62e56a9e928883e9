// CommandRunner -- runs a batch of one connection's requests in order and collects the replies.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Checks access ({@link AccessControl}: NOAUTH, NOPERM) and arity, dispatches each request to {@link StoreCommands},
 * {@link UpdateCommands} or {@link ServerCommands}, and
 * turns failures into error replies: a store error answers one command, it never closes the
 * connection or escapes to the event loop.
 *
 * <p>Consecutive plain SETs of a batch go to the store as one {@code putAll}: one durability wait
 * for the run instead of one per SET. Each still gets its {@code +OK} only after that wait, so a
 * SET is answered only once it is as durable as the fsync policy promises; a GET after it in the
 * same batch sees its value, because the store makes writes visible before they are durable.
 */
final class CommandRunner {
    private final StoreCommands store;
    private final UpdateCommands updates;
    private final ServerCommands server;
    private final AccessControl access;

    CommandRunner(StoreCommands store, UpdateCommands updates, ServerCommands server, AccessControl access) {
        this.store = store;
        this.updates = updates;
        this.server = server;
        this.access = access;
    }

    /** Whether a burst of plain SETs of {@code conn} may go to the store as one putAll: its user may write. */
    static boolean maySet(ConnectionState conn) {
        return AccessControl.allows(Command.SET, conn);
    }

    /**
     * Runs {@code batch}, appending one encoded reply per request to {@code out}. Returns true when
     * the connection must close after these replies (QUIT, a protocol error); requests after that
     * point are dropped unanswered.
     */
    boolean run(List<RespRequest> batch, ByteBuf out, ConnectionState conn) {
        int i = 0;
        while (i < batch.size()) {
            RespRequest r = batch.get(i);
            if (StoreCommands.isPlainSet(r) && maySet(conn)) {
                int end = i + 1;
                while (end < batch.size() && StoreCommands.isPlainSet(batch.get(end))) {
                    end++;
                }
                setRun(batch.subList(i, end), out);
                i = end;
                continue;
            }
            i++;
            if (r.protocolError() != null) {
                ReplyEncoder.encode(Replies.error("ERR " + r.protocolError()), out);
                return true;
            }
            if (runOne(r, out, conn)) {
                return true;
            }
        }
        return false;
    }

    /** {@link #writeSetsOnLoop}'s answer when the SETs must go to a worker instead. */
    static final long ON_WORKER = -1;

    /**
     * On the event loop: writes plain SETs' entries and makes them visible without waiting for durability, and
     * returns the ticket to wait on ({@link #whenDurable}) before answering them. Returns
     * {@link #ON_WORKER}, having written nothing, when the store cannot write without blocking (it has no local log)
     * or an entry breaks a limit: each batch then runs on a worker, as {@link #run} (which refuses the bad SET alone).
     * A store failure is thrown.
     */
    long writeSetsOnLoop(List<Map.Entry<byte[], byte[]>> entries) {
        try {
            return store.putAllVisible(entries);
        } catch (IllegalArgumentException e) {
            return ON_WORKER;
        }
    }

    /**
     * Never blocks: {@code then} gets null once the writes up to {@code ticket} are durable, or the failure; it runs
     * at once, or later on the store's syncer thread, so it must only hand the answer over.
     */
    void whenDurable(long ticket, Consumer<RuntimeException> then) {
        store.whenDurable(ticket, then);
    }

    /** Whether {@code r} is of a kind {@link #answerFromMemory} may answer: a test of the command alone. */
    static boolean mayAnswerFromMemory(RespRequest r) {
        Command c = r.command();
        return c == Command.GET || c == Command.PING || c == Command.ECHO;
    }

    /**
     * On the event loop: answers {@code r} into {@code out} if that can be done without blocking
     * (GET of a value in the store's memory tier, PING, ECHO) and returns true; otherwise writes
     * nothing and returns false, and the request goes to a worker. Counts a GET's lookup only when
     * it answers it.
     */
    boolean answerFromMemory(RespRequest r, ByteBuf out, ConnectionState conn) {
        Command c = r.command();
        if (c == null || !c.acceptsArgc(r.argc()) || !AccessControl.allows(c, conn)) {
            return false;
        }
        int start = out.writerIndex();
        try {
            return switch (c) {
                case GET -> store.getFromMemory(r, out, conn);
                case PING, ECHO -> {
                    ReplyEncoder.encode(server.run(c, r, conn), out);
                    yield true;
                }
                default -> false;
            };
        } catch (RuntimeException e) { // a closing store: the worker path answers it with its error
            out.writerIndex(start);
            return false;
        }
    }

    private void setRun(List<RespRequest> sets, ByteBuf out) {
        if (sets.size() == 1) {
            ReplyEncoder.encode(guarded(sets.get(0), store::set), out);
            return;
        }
        List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(sets.size());
        for (RespRequest r : sets) {
            entries.add(StoreCommands.entryOf(r));
        }
        try {
            store.putAll(entries);
            for (int k = 0; k < sets.size(); k++) {
                ReplyEncoder.ok(out);
            }
        } catch (IllegalArgumentException e) {
            // putAll checks every entry before writing any: answer each SET on its own.
            for (RespRequest r : sets) {
                ReplyEncoder.encode(guarded(r, store::set), out);
            }
        } catch (RuntimeException e) {
            for (int k = 0; k < sets.size(); k++) {
                ReplyEncoder.encode(StoreCommands.storeError(e), out);
            }
        }
    }

    /** Runs one request; true when the connection must close after it (QUIT, a SHUTDOWN that started). */
    private boolean runOne(RespRequest r, ByteBuf out, ConnectionState conn) {
        Command c = r.command();
        if (c == null) {
            ReplyEncoder.encode(conn.user == null ? Replies.error(AccessControl.NOAUTH) : unknown(r), out);
            return false;
        }
        RedisMessage refused = access.refusal(c, conn);
        if (refused != null) {
            ReplyEncoder.encode(refused, out);
            return false;
        }
        if (!c.acceptsArgc(r.argc())) {
            ReplyEncoder.encode(Replies.wrongArity(c), out);
            return false;
        }
        try {
            switch (c) {
                case GET -> store.get(r, out, conn);
                case MGET -> store.mget(r, out, conn);
                case SHUTDOWN -> {
                    RedisMessage error = server.shutdown(r, conn);
                    if (error == null) {
                        return true;
                    }
                    ReplyEncoder.encode(error, out);
                }
                default -> ReplyEncoder.encode(reply(c, r, conn), out);
            }
        } catch (RuntimeException e) {
            ReplyEncoder.encode(StoreCommands.storeError(e), out);
        }
        return c == Command.QUIT;
    }

    private RedisMessage reply(Command c, RespRequest r, ConnectionState conn) {
        return switch (c) {
            case SET -> store.set(r);
            case MSET -> store.mset(r);
            case DEL, UNLINK -> store.del(r);
            case EXISTS -> store.exists(r);
            case STRLEN -> store.strlen(r);
            case INCR, DECR, INCRBY, DECRBY -> updates.incrBy(c, r);
            case APPEND -> updates.append(r);
            case SETNX -> updates.setnx(r);
            case GETSET -> updates.getset(r);
            case GETDEL -> updates.getdel(r);
            case DBSIZE -> store.dbsize();
            case ELASTIC_RESIZE -> store.resize(r);
            case ELASTIC_STATS -> store.stats();
            case AUTH -> access.auth(r, conn);
            default -> server.run(c, r, conn);
        };
    }

    private static RedisMessage guarded(RespRequest r, java.util.function.Function<RespRequest, RedisMessage> f) {
        try {
            return f.apply(r);
        } catch (RuntimeException e) {
            return StoreCommands.storeError(e);
        }
    }

    /** Redis 7's text: {@code ERR unknown command 'x', with args beginning with: 'a' 'b' }. */
    static RedisMessage unknown(RespRequest r) {
        StringBuilder args = new StringBuilder();
        for (int i = 1; i < r.argc() && args.length() < 128; i++) {
            String a = printable(r.text(i));
            args.append('\'').append(a, 0, Math.min(a.length(), 128 - args.length())).append("' ");
        }
        String name = printable(r.text(0));
        return Replies.error("ERR unknown command '" + name.substring(0, Math.min(128, name.length()))
                + "', with args beginning with: " + args);
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return b.toString();
    }
}
