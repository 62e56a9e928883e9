// Command -- the commands a RespServer knows, found by name without allocating.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * A known command and its arity in Redis's convention: {@code arity > 0} is an exact argument
 * count including the name, {@code arity < 0} a minimum of {@code -arity}.
 */
enum Command {
    PING(-1), ECHO(2), GET(2), SET(-3), DEL(-2), EXISTS(-2), MGET(-2), DBSIZE(1), INFO(-1),
    CONFIG(-2), COMMAND(-1), QUIT(-1), SELECT(2), CLIENT(-2), HELLO(-1),
    ELASTIC_RESIZE("ELASTIC.RESIZE", 2), ELASTIC_STATS("ELASTIC.STATS", 1);

    private static final Command[] ALL = values();

    final String wireName;
    /** The name in capitals; shared, never written to. */
    final byte[] upper;
    final int arity;

    Command(int arity) {
        this(null, arity);
    }

    Command(String wireName, int arity) {
        this.wireName = wireName != null ? wireName : name();
        this.upper = this.wireName.getBytes(StandardCharsets.US_ASCII);
        this.arity = arity;
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
