// RespRequest -- one parsed command: what it is and its arguments, still in the connection's buffers.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A command as {@link RespCommandDecoder} produced it. The arguments are slices of the bytes read,
 * not copies; the request owns the message they live in and {@link #release()} frees it once the
 * command has run. A request with a {@link #protocolError()} stands for input that could not be
 * parsed: it is answered with that error in its turn, and the connection is closed.
 */
final class RespRequest {
    private final Command command;
    private final List<ByteBuf> args;   // args.get(0) is the name as sent
    private final Object owner;         // released with the request
    private final String protocolError;

    private RespRequest(Command command, List<ByteBuf> args, Object owner, String protocolError) {
        this.command = command;
        this.args = args;
        this.owner = owner;
        this.protocolError = protocolError;
    }

    static RespRequest of(List<ByteBuf> args, Object owner) {
        return new RespRequest(Command.lookup(args.get(0)), args, owner, null);
    }

    static RespRequest protocolError(String message) {
        return new RespRequest(null, List.of(), null, message);
    }

    /** The known command, or null for an unknown name (or a protocol error). */
    Command command() {
        return command;
    }

    /** Whether the command writes to the store (and so may park until an fsync). */
    boolean writes() {
        return command == Command.SET || command == Command.DEL;
    }

    String protocolError() {
        return protocolError;
    }

    /** Arguments including the name. */
    int argc() {
        return args.size();
    }

    ByteBuf arg(int i) {
        return args.get(i);
    }

    /** A fresh copy of argument {@code i}, for the store's {@code byte[]} API. */
    byte[] bytes(int i) {
        return ByteBufUtil.getBytes(args.get(i));
    }

    /** Argument {@code i} decoded as UTF-8 text, for names and numbers, never for keys and values. */
    String text(int i) {
        return args.get(i).toString(StandardCharsets.UTF_8);
    }

    /** Whether argument {@code i} equals {@code word}, ignoring ASCII case. */
    boolean is(int i, String word) {
        ByteBuf b = args.get(i);
        if (b.readableBytes() != word.length()) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            int c = b.getByte(b.readerIndex() + k);
            if (Character.toUpperCase((char) (c & 0xff)) != Character.toUpperCase(word.charAt(k))) {
                return false;
            }
        }
        return true;
    }

    void release() {
        if (owner != null) {
            ReferenceCountUtil.release(owner);
        }
    }
}
