// Command -- the commands a RespServer knows, found by name without allocating.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * A known command, its arity in Redis's convention ({@code arity > 0} is an exact argument count
 * including the name, {@code arity < 0} a minimum of {@code -arity}) and its {@link Access} class,
 * which decides who may run it ({@link RespRole}).
 */
enum Command {
    PING(-1, Access.READ), ECHO(2, Access.READ), GET(2, Access.READ), SET(-3, Access.WRITE),
    DEL(-2, Access.WRITE), EXISTS(-2, Access.READ), MGET(-2, Access.READ), DBSIZE(1, Access.READ),
    INFO(-1, Access.READ), CONFIG(-2, Access.READ), COMMAND(-1, Access.READ), QUIT(-1, Access.CONNECTION),
    SELECT(2, Access.READ), CLIENT(-2, Access.READ), HELLO(-1, Access.CONNECTION),
    AUTH(-2, Access.CONNECTION),
    ELASTIC_RESIZE("ELASTIC.RESIZE", 2, Access.ADMIN), ELASTIC_STATS("ELASTIC.STATS", 1, Access.READ),
    MSET(-3, Access.WRITE), UNLINK(-2, Access.WRITE), SHUTDOWN(-1, Access.ADMIN),
    INCR(2, Access.WRITE), DECR(2, Access.WRITE), INCRBY(3, Access.WRITE), DECRBY(3, Access.WRITE),
    APPEND(3, Access.WRITE), SETNX(3, Access.WRITE), GETSET(3, Access.WRITE), GETDEL(2, Access.WRITE),
    STRLEN(2, Access.READ);

    /**
     * Who may run a command. {@code CONNECTION} commands run before AUTH (they are how a client
     * authenticates or leaves); the others need a user whose role allows their class. CONFIG is
     * {@code READ} because only CONFIG GET of fixed, harmless values exists here; SHUTDOWN is
     * {@code ADMIN}, as a CONFIG SET or FLUSHALL would be.
     */
    enum Access { CONNECTION, READ, WRITE, ADMIN }

    private static final Command[] ALL = values();

    final String wireName;
    /** The name in capitals; shared, never written to. */
    final byte[] upper;
    final int arity;
    final Access access;

    Command(int arity, Access access) {
        this(null, arity, access);
    }

    Command(String wireName, int arity, Access access) {
        this.wireName = wireName != null ? wireName : name();
        this.upper = this.wireName.getBytes(StandardCharsets.US_ASCII);
        this.arity = arity;
        this.access = access;
    }

    /** The command named {@code name}, any case; null when unknown. */
    static Command lookup(byte[] name) {
        for (Command c : ALL) {
            if (c.upper.length == name.length && matches(c.upper, name)) {
                return c;
            }
        }
        return null;
    }

    /** The command named by {@code length} bytes of {@code buf} from {@code index}, any case; null when unknown. */
    static Command lookup(ByteBuf buf, int index, int length) {
        for (Command c : ALL) {
            if (c.upper.length == length && matches(c.upper, buf, index)) {
                return c;
            }
        }
        return null;
    }

    private static boolean matches(byte[] upper, ByteBuf buf, int index) {
        for (int i = 0; i < upper.length; i++) {
            int b = buf.getByte(index + i);
            if (b >= 'a' && b <= 'z') {
                b -= 'a' - 'A';
            }
            if (b != upper[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean matches(byte[] upper, byte[] name) {
        for (int i = 0; i < upper.length; i++) {
            int b = name[i];
            if (b >= 'a' && b <= 'z') {
                b -= 'a' - 'A';
            }
            if (b != upper[i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code argc} arguments (name included) fit this command's arity. */
    boolean acceptsArgc(int argc) {
        return arity > 0 ? argc == arity : argc >= -arity;
    }
}
