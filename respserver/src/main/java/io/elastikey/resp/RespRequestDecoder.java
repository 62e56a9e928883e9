// RespRequestDecoder -- bytes to RespRequests: RESP2 multibulk and inline commands, every bound checked on its header.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.Arrays;
import java.util.List;

/**
 * Parses requests straight from the cumulation buffer into {@link RespRequest}s whose arguments are
 * {@code byte[]}: each argument is copied once, from the socket's buffer into the array the store
 * takes. A small state machine in the manner of Netty's {@code RedisDecoder}: one method per state,
 * each returning false when it needs more bytes.
 *
 * <ul>
 *   <li>{@code COMMAND}: a {@code *N} header (an array of N bulk strings), or an inline line (what
 *       {@code telnet} sends; split into words with Redis's quoting, {@link InlineWords}). Empty and null
 *       arrays and blank lines are skipped, as Redis does.
 *   <li>{@code BULK_HEADER}: {@code $len}. The length is checked against {@link RespLimits} before
 *       the argument's array is allocated: {@code *1000000000} or {@code $999999999} cost nothing.
 *   <li>{@code BULK_BODY}: the bytes, copied as they arrive, so a large value split over many reads
 *       is never parsed again from its start; then its CRLF.
 * </ul>
 *
 * A violation throws {@link RespProtocolException} with Redis's text ({@code Protocol error: ...});
 * after it the decoder drops every byte, since nothing that follows can be trusted to start a
 * command, and the dispatcher answers the error and closes the connection.
 */
final class RespRequestDecoder extends ByteToMessageDecoder {
    private static final long NEED_MORE = Long.MIN_VALUE;
    private static final int MAX_DIGITS = 18;

    private enum State { COMMAND, BULK_HEADER, BULK_BODY, FAILED }

    private final RespLimits limits;
    private final UnfinishedRequests unfinished;
    private long reserved;     // bytes of the current command's arguments taken from the server's budget
    private State state = State.COMMAND;
    private byte[][] args;     // the current command's arguments so far
    private int argc;
    private long expected;     // arguments the current command declared
    private long requestBytes; // bulk bytes the current command declared so far
    private byte[] bulk;       // the argument being filled
    private int filled;

    RespRequestDecoder(RespLimits limits, UnfinishedRequests unfinished) {
        this.limits = limits;
        this.unfinished = unfinished;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            while (in.isReadable() && step(in, out)) {
                // one state after another while bytes last
            }
        } catch (RespProtocolException e) {
            fail(in);
            throw e;
        }
    }

    private boolean step(ByteBuf in, List<Object> out) {
        return switch (state) {
            case COMMAND -> decodeCommand(in, out);
            case BULK_HEADER -> decodeBulkHeader(in, out);
            case BULK_BODY -> decodeBulkBody(in, out);
            case FAILED -> fail(in);
        };
    }

    private boolean fail(ByteBuf in) {
        state = State.FAILED;
        args = null;
        bulk = null;
        releaseReserved();
        in.skipBytes(in.readableBytes());
        return false;
    }

    private void releaseReserved() {
        unfinished.release(reserved);
        reserved = 0;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        args = null;
        bulk = null;
        releaseReserved(); // the connection went with a command half sent
    }

    private boolean decodeCommand(ByteBuf in, List<Object> out) {
        byte type = in.getByte(in.readerIndex());
        if (type != '*') {
            if (type == '$' || type == '+' || type == '-' || type == ':') {
                throw new RespProtocolException("Protocol error: expected '*', got '" + (char) type + "'");
            }
            return decodeInline(in, out);
        }
        long n = number(in, "invalid multibulk length");
        if (n == NEED_MORE) {
            return false;
        }
        if (n < -1) {
            throw new RespProtocolException("Protocol error: invalid multibulk length");
        }
        if (n > limits.maxArrayLength()) { // Redis's text, then which limit, as for a bulk over its limit
            throw new RespProtocolException("Protocol error: invalid multibulk length (" + n + " elements; at most "
                    + limits.maxArrayLength() + ")");
        }
        if (n > 0) {
            args = new byte[(int) Math.min(n, 16)][];
            argc = 0;
            expected = n;
            requestBytes = 0;
            state = State.BULK_HEADER;
        }
        return true;
    }

    private boolean decodeBulkHeader(ByteBuf in, List<Object> out) {
        byte type = in.getByte(in.readerIndex());
        if (type != '$') {
            throw new RespProtocolException("Protocol error: expected '$', got '" + printable(type) + "'");
        }
        long n = number(in, "invalid bulk length");
        if (n == NEED_MORE) {
            return false;
        }
        if (n < 0) {
            throw new RespProtocolException("Protocol error: invalid bulk length");
        }
        if (n > limits.maxBulkBytes()) { // Redis's text, then which limit (store serve --max-value-size)
            throw new RespProtocolException("Protocol error: invalid bulk length (" + n + " bytes; at most "
                    + limits.maxBulkBytes() + ")");
        }
        requestBytes += n;
        if (requestBytes > limits.maxRequestBytes()) {
            throw new RespProtocolException("Protocol error: request larger than " + limits.maxRequestBytes()
                    + " bytes");
        }
        if (argc == 0 && knownName(in, (int) n, out)) {
            return true;
        }
        if (!unfinished.reserve(n)) {
            throw new RespProtocolException("Protocol error: the server holds " + unfinished.budget()
                    + " bytes of requests still arriving, its limit; send this command again later");
        }
        reserved += n;
        bulk = new byte[(int) n];
        filled = 0;
        state = State.BULK_BODY;
        return true;
    }

    /**
     * A command name that has fully arrived and is known becomes the command's shared spelling
     * instead of a copy: one allocation less per request.
     */
    private boolean knownName(ByteBuf in, int n, List<Object> out) {
        int at = in.readerIndex();
        if (in.readableBytes() < n + 2 || in.getByte(at + n) != '\r' || in.getByte(at + n + 1) != '\n') {
            return false;
        }
        Command c = Command.lookup(in, at, n);
        if (c == null) {
            return false;
        }
        in.skipBytes(n + 2);
        add(c.upper, out);
        return true;
    }

    private boolean decodeBulkBody(ByteBuf in, List<Object> out) {
        int take = Math.min(bulk.length - filled, in.readableBytes());
        in.readBytes(bulk, filled, take);
        filled += take;
        if (filled < bulk.length || in.readableBytes() < 2) {
            return false;
        }
        int at = in.readerIndex();
        if (in.getByte(at) != '\r' || in.getByte(at + 1) != '\n') {
            throw new RespProtocolException("Protocol error: bulk string without its CRLF");
        }
        in.skipBytes(2);
        add(bulk, out);
        bulk = null;
        return true;
    }

    /** Adds an argument to the current command; emits the command when it was the last. */
    private void add(byte[] arg, List<Object> out) {
        if (argc == args.length) {
            args = Arrays.copyOf(args, (int) Math.min(expected, 2L * args.length));
        }
        args[argc++] = arg;
        if (argc == expected) {
            out.add(RespRequest.of(args, argc));
            args = null;
            releaseReserved();
            state = State.COMMAND;
        } else {
            state = State.BULK_HEADER;
        }
    }

    /**
     * The decimal number of a type line ({@code *3}, {@code $5}) after its type byte, up to its CRLF,
     * consuming the line; {@link #NEED_MORE} (nothing consumed) when the CRLF has not arrived yet.
     */
    private static long number(ByteBuf in, String error) {
        int i = in.readerIndex() + 1;
        int end = in.writerIndex();
        boolean negative = i < end && in.getByte(i) == '-';
        if (negative) {
            i++;
        }
        long v = 0;
        int digits = 0;
        for (; i < end; i++) {
            byte c = in.getByte(i);
            if (c >= '0' && c <= '9' && digits < MAX_DIGITS) {
                v = v * 10 + (c - '0');
                digits++;
            } else if (c == '\r' && digits > 0) {
                if (i + 1 == end) {
                    return NEED_MORE;
                }
                if (in.getByte(i + 1) != '\n') {
                    break;
                }
                in.readerIndex(i + 2);
                return negative ? -v : v;
            } else {
                break;
            }
        }
        if (i == end) {
            return NEED_MORE; // at most 20 bytes in, all of them digits so far
        }
        throw new RespProtocolException("Protocol error: " + error);
    }

    /** A line of words; {@code \n} or {@code \r\n} ends it, as in Redis. */
    private boolean decodeInline(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        // A line of the longest length and its CR LF: the LF is at most max + 1 bytes in. The refusal depends on
        // the line alone, not on where a read ended (before, a read ending just after the CR of a line of exactly
        // max bytes was refused, and the same bytes in one read accepted: found by fuzzing).
        int max = limits.maxInlineBytes();
        int searched = Math.min(in.readableBytes(), max + 2);
        int lf = in.indexOf(start, start + searched, (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() >= max + 2) {
                throw new RespProtocolException("Protocol error: too big inline request");
            }
            return false;
        }
        int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        if (end - start > max) {
            throw new RespProtocolException("Protocol error: too big inline request");
        }
        InlineWords.Split split = InlineWords.split(in, start, end);
        in.readerIndex(lf + 1);
        if (split.count() > 0) {
            out.add(RespRequest.of(split.words(), split.count()));
        }
        return true;
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff);
    }
}
