// RespRequest -- one parsed command: what it is and its arguments, as the byte arrays the store takes.
package io.elastikey.resp;

import java.nio.charset.StandardCharsets;

/**
 * A command as {@link RespRequestDecoder} produced it. Each argument is its own {@code byte[]},
 * copied once from the socket's buffer; the store's API takes keys and values as arrays, so they
 * are handed over as they are. A request holds no buffer and needs no release. A request with a
 * {@link #protocolError()} stands for input that could not be parsed: it is answered with that
 * error in its turn, and the connection is closed.
 */
final class RespRequest {
    private static final byte[][] NONE = new byte[0][];

    private final Command command;
    private final byte[][] args;   // args[0] is the name: as sent, or the known command's capitals
    private final int argc;
    private final String protocolError;

    private RespRequest(Command command, byte[][] args, int argc, String protocolError) {
        this.command = command;
        this.args = args;
        this.argc = argc;
        this.protocolError = protocolError;
    }

    /** A request of the first {@code argc} arrays of {@code args}; it keeps {@code args}. */
    static RespRequest of(byte[][] args, int argc) {
        return new RespRequest(Command.lookup(args[0]), args, argc, null);
    }

    static RespRequest protocolError(String message) {
        return new RespRequest(null, NONE, 0, message);
    }

    /** The known command, or null for an unknown name (or a protocol error). */
    Command command() {
        return command;
    }

    /** Whether the command writes to the store (and so may park until an fsync). */
    boolean writes() {
        return command != null && command.access == Command.Access.WRITE;
    }

    String protocolError() {
        return protocolError;
    }

    /** Arguments including the name. */
    int argc() {
        return argc;
    }

    /** Argument {@code i} itself, not a copy: the store takes it as it is, nobody writes to it. */
    byte[] bytes(int i) {
        return args[i];
    }

    /** Argument {@code i} decoded as UTF-8 text, for names and numbers, never for keys and values. */
    String text(int i) {
        return new String(args[i], StandardCharsets.UTF_8);
    }

    /** Whether argument {@code i} equals {@code word}, ignoring ASCII case. */
    boolean is(int i, String word) {
        byte[] b = args[i];
        if (b.length != word.length()) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            if (Character.toUpperCase((char) (b[k] & 0xff)) != Character.toUpperCase(word.charAt(k))) {
                return false;
            }
        }
        return true;
    }
}
