// UpdateCommands -- INCR, DECR, INCRBY, DECRBY, APPEND, SETNX, GETSET, GETDEL and SET's NX, XX and GET: writes that
// depend on the value before them.
package io.elastikey.resp;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.elastic.ElasticStore;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * Each command is one read and one write of a key with no other write of it between: Redis gets that by running a
 * command whole on its one thread, this server from {@link ElasticStore#compute}, which runs the change under the
 * key's stripe lock. So two connections that INCR the same key never both read 5 and write 6. The commands run on the
 * worker threads, like DEL, and are answered once the write is as durable as a SET's. A store without that primitive
 * (anything but an ElasticStore) answers them with an error that says so.
 *
 * <p>Errors are Redis's texts. A remap refuses by throwing {@link IllegalArgumentException}, which
 * {@link StoreCommands#storeError} answers as {@code -ERR <message>}, and the store writes nothing.
 */
final class UpdateCommands {
    static final String NOT_AN_INTEGER = "value is not an integer or out of range";

    private final ElasticStore store; // null: updates are refused

    UpdateCommands(KeyValueStore store) {
        this.store = store instanceof ElasticStore e ? e : null;
    }

    /** INCR, DECR, INCRBY, DECRBY: the new value, as an integer reply. An absent key counts as 0. */
    RedisMessage incrBy(Command c, RespRequest r) {
        long by = switch (c) {
            case INCR -> 1;
            case DECR -> -1;
            case INCRBY -> integerArgument(r.bytes(2));
            case DECRBY -> {
                long n = integerArgument(r.bytes(2));
                if (n == Long.MIN_VALUE) {
                    throw new IllegalArgumentException("decrement would overflow");
                }
                yield -n;
            }
            default -> throw new IllegalStateException(c + " is not a counter command");
        };
        byte[] before = compute(c, r.bytes(1), b -> ascii(plus(counter(b), by)));
        return Replies.integer(counter(before) + by); // the remap succeeded, so this cannot overflow
    }

    /** APPEND: the value's new length. */
    RedisMessage append(RespRequest r) {
        byte[] tail = r.bytes(2);
        byte[] before = compute(Command.APPEND, r.bytes(1), b -> concat(b, tail));
        return Replies.integer((before == null ? 0L : before.length) + tail.length);
    }

    /** SETNX: 1 when the key was absent and is now set, 0 when it was there (and is left alone). */
    RedisMessage setnx(RespRequest r) {
        byte[] value = r.bytes(2);
        byte[] before = compute(Command.SETNX, r.bytes(1), b -> b == null ? value : b);
        return Replies.integer(before == null ? 1 : 0);
    }

    /** GETSET: the value before, or nil. */
    RedisMessage getset(RespRequest r) {
        byte[] value = r.bytes(2);
        return Replies.bulk(compute(Command.GETSET, r.bytes(1), b -> value));
    }

    /** GETDEL: the value before, or nil; the key is gone after. */
    RedisMessage getdel(RespRequest r) {
        return Replies.bulk(compute(Command.GETDEL, r.bytes(1), b -> null));
    }

    /**
     * SET with NX (only when absent), XX (only when present) and/or GET (answer the value before). Without GET:
     * {@code +OK} when written, nil when the condition kept the key as it was.
     */
    RedisMessage set(byte[] key, byte[] value, boolean nx, boolean xx, boolean get) {
        byte[] before = compute(Command.SET, key, b -> (nx && b != null) || (xx && b == null) ? b : value);
        if (get) {
            return Replies.bulk(before);
        }
        boolean written = nx ? before == null : !xx || before != null;
        return written ? Replies.OK : Replies.NULL;
    }

    private byte[] compute(Command c, byte[] key, UnaryOperator<byte[]> remap) {
        if (store == null) {
            throw new IllegalArgumentException(c.wireName + " needs an ElasticStore: this store cannot change a key "
                    + "in one step");
        }
        return store.compute(key, remap);
    }

    /** A stored value as a counter: absent is 0, anything but a canonical 64-bit decimal is refused. */
    static long counter(byte[] value) {
        if (value == null) {
            return 0;
        }
        return integerArgument(value);
    }

    /**
     * A canonical signed 64-bit decimal, as Redis's {@code string2ll} reads it: no sign but '-', no leading zeros or
     * spaces, at most 20 characters; anything else is refused with Redis's text.
     */
    static long integerArgument(byte[] text) {
        int n = text.length;
        if (n == 0 || n > 20) {
            throw new IllegalArgumentException(NOT_AN_INTEGER);
        }
        if (n == 1 && text[0] == '0') {
            return 0;
        }
        boolean negative = text[0] == '-';
        int i = negative ? 1 : 0;
        if (i >= n || text[i] < '1' || text[i] > '9') {
            throw new IllegalArgumentException(NOT_AN_INTEGER);
        }
        long v = 0; // accumulated negatively: Long.MIN_VALUE has no positive twin
        for (; i < n; i++) {
            int d = text[i] - '0';
            if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
                throw new IllegalArgumentException(NOT_AN_INTEGER);
            }
            v = v * 10 - d;
        }
        if (!negative) {
            if (v == Long.MIN_VALUE) {
                throw new IllegalArgumentException(NOT_AN_INTEGER);
            }
            v = -v;
        }
        return v;
    }

    private static long plus(long value, long by) {
        try {
            return Math.addExact(value, by);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("increment or decrement would overflow");
        }
    }

    private static byte[] concat(byte[] head, byte[] tail) {
        if (head == null) {
            return tail.clone(); // a new array even for an empty tail: the same array would mean "unchanged"
        }
        byte[] out = new byte[head.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(tail, 0, out, head.length, tail.length);
        return out;
    }

    private static byte[] ascii(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
