// InlineWords -- splits an inline command line into arguments the way redis-server does (sdssplitargs).
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * The words of one inline line ({@code telnet}, {@code nc}, scripts that pipe text), with Redis's quoting so that
 * what works against redis-server works here: words are separated by white space (C's {@code isspace});
 * {@code "..."} takes the escapes {@code \n \r \t \b \a \\ \"} and {@code \xHH}, any other escaped character
 * standing for itself; {@code '...'}
 * takes only {@code \'}; a quote may open in the middle of a word ({@code a"b c"} is {@code ab c}), and a closing
 * quote must be followed by a blank or the end of the line. An unterminated quote, or a closing one followed by
 * anything else, is {@code Protocol error: unbalanced quotes in request}, as in Redis.
 *
 * <p>Owns nothing: reads {@code line[start, end)} of the caller's buffer, returns new arrays.
 */
final class InlineWords {
    /** The split of one line: {@code words[0, count)}. */
    record Split(byte[][] words, int count) {
    }

    private final ByteBuf line;
    private final int end;
    private int at;

    private InlineWords(ByteBuf line, int start, int end) {
        this.line = line;
        this.at = start;
        this.end = end;
    }

    /** Splits {@code line[start, end)}; the line holds no line ending. */
    static Split split(ByteBuf line, int start, int end) {
        return new InlineWords(line, start, end).all();
    }

    private Split all() {
        byte[][] words = new byte[4][];
        int count = 0;
        while (true) {
            while (at < end && blank(line.getByte(at))) {
                at++;
            }
            if (at == end) {
                return new Split(words, count);
            }
            if (count == words.length) {
                words = Arrays.copyOf(words, count * 2);
            }
            words[count++] = word();
        }
    }

    /** One word from {@code at}, which is not blank; leaves {@code at} after it. */
    private byte[] word() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16);
        while (at < end && !blank(line.getByte(at))) {
            byte b = line.getByte(at++);
            if (b == '"') {
                doubleQuoted(out);
            } else if (b == '\'') {
                singleQuoted(out);
            } else {
                out.write(b);
            }
        }
        return out.toByteArray();
    }

    /** From just after an opening {@code "} to just after its closing one. */
    private void doubleQuoted(ByteArrayOutputStream out) {
        while (at < end) {
            byte b = line.getByte(at++);
            if (b == '"') {
                closed();
                return;
            }
            if (b == '\\' && at < end) {
                out.write(escaped());
            } else {
                out.write(b);
            }
        }
        throw unbalanced();
    }

    /** The character an escape stands for; {@code at} is just after the backslash. */
    private int escaped() {
        byte c = line.getByte(at++);
        if (c == 'x' && at + 1 < end && hex(line.getByte(at)) >= 0 && hex(line.getByte(at + 1)) >= 0) {
            int value = hex(line.getByte(at)) << 4 | hex(line.getByte(at + 1));
            at += 2;
            return value;
        }
        return switch (c) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'b' -> '\b';
            case 'a' -> 7;
            default -> c;
        };
    }

    /** From just after an opening {@code '} to just after its closing one. */
    private void singleQuoted(ByteArrayOutputStream out) {
        while (at < end) {
            byte b = line.getByte(at++);
            if (b == '\\' && at < end && line.getByte(at) == '\'') {
                out.write('\'');
                at++;
            } else if (b == '\'') {
                closed();
                return;
            } else {
                out.write(b);
            }
        }
        throw unbalanced();
    }

    /** A closing quote ends its word: a blank or the end of the line must follow. */
    private void closed() {
        if (at < end && !blank(line.getByte(at))) {
            throw unbalanced();
        }
    }

    private static RespProtocolException unbalanced() {
        return new RespProtocolException("Protocol error: unbalanced quotes in request");
    }

    private static int hex(byte b) {
        return Character.digit(b, 16);
    }

    private static boolean blank(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == 0x0b || b == 0x0c;
    }
}
