// ReplyEncoder -- RESP2 reply bytes, written by the worker that ran the command, not by the event loop.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Encodes a batch's replies into one buffer on the worker thread: the event loop then writes one
 * buffer per batch and does no per-reply work. (Netty's {@code RedisEncoder} would run on the event
 * loop, allocate a header buffer per bulk reply and look every length up in a map of cached
 * numbers; profiling showed the event loop as the bottleneck with it.) The hot replies, GET's bulk
 * string and SET's {@code +OK}, are written straight into the buffer by {@link StoreCommands};
 * the rest go through {@link #encode}.
 */
final class ReplyEncoder {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);

    private ReplyEncoder() {
    }

    /** Bytes of one {@code +OK} reply. */
    static final int OK_LENGTH = OK.length;

    static void ok(ByteBuf out) {
        out.writeBytes(OK);
    }

    static void nullBulk(ByteBuf out) {
        out.writeBytes(NULL_BULK);
    }

    /** {@code <type><n>\r\n}: an integer reply, or the header of a bulk string or an array. */
    static void header(ByteBuf out, char type, long n) {
        out.writeByte(type);
        writeDecimal(out, n);
        out.writeBytes(CRLF);
    }

    static void crlf(ByteBuf out) {
        out.writeBytes(CRLF);
    }

    /** Appends {@code msg}'s encoding to {@code out} and releases {@code msg}. */
    static void encode(RedisMessage msg, ByteBuf out) {
        try {
            write(msg, out);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private static void write(RedisMessage msg, ByteBuf out) {
        if (msg instanceof SimpleStringRedisMessage s) {
            out.writeByte('+');
            ByteBufUtil.writeUtf8(out, s.content());
            out.writeBytes(CRLF);
        } else if (msg instanceof ErrorRedisMessage e) {
            out.writeByte('-');
            ByteBufUtil.writeUtf8(out, e.content());
            out.writeBytes(CRLF);
        } else if (msg instanceof IntegerRedisMessage i) {
            header(out, ':', i.value());
        } else if (msg instanceof FullBulkStringRedisMessage b) {
            if (b.isNull()) {
                nullBulk(out);
            } else {
                header(out, '$', b.content().readableBytes());
                out.writeBytes(b.content(), b.content().readerIndex(), b.content().readableBytes());
                out.writeBytes(CRLF);
            }
        } else if (msg instanceof ArrayRedisMessage a) {
            if (a.isNull()) {
                out.writeBytes("*-1\r\n".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            header(out, '*', a.children().size());
            for (RedisMessage child : a.children()) {
                write(child, out);
            }
        } else {
            throw new IllegalArgumentException("cannot encode " + msg);
        }
    }

    /** The number of bytes {@code n >= 0} takes in decimal. */
    static int digits(long n) {
        int d = 1;
        while (n >= 10) {
            n /= 10;
            d++;
        }
        return d;
    }

    static void writeDecimal(ByteBuf out, long n) {
        if (n < 0) {
            out.writeByte('-');
            if (n == Long.MIN_VALUE) {
                out.writeBytes("9223372036854775808".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            n = -n;
        }
        int d = digits(n);
        int at = out.writerIndex();
        out.ensureWritable(d);
        for (int i = d - 1; i >= 0; i--) {
            out.setByte(at + i, (int) ('0' + n % 10));
            n /= 10;
        }
        out.writerIndex(at + d);
    }
}
