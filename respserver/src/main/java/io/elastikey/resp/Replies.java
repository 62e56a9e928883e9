// Replies -- the reply messages commands answer with; shared constants where the reply never changes.
package io.elastikey.resp;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Builders for reply messages. Error texts never hold CR or LF: those would end the reply early. */
final class Replies {
    static final RedisMessage OK = new SimpleStringRedisMessage("OK");
    static final RedisMessage PONG = new SimpleStringRedisMessage("PONG");
    static final RedisMessage NULL = FullBulkStringRedisMessage.NULL_INSTANCE;
    static final RedisMessage EMPTY_ARRAY = ArrayRedisMessage.EMPTY_INSTANCE;

    private Replies() {
    }

    /** {@code -<text>}; {@code text} starts with its error code ({@code ERR}, {@code NOPROTO}, ...). */
    static RedisMessage error(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            b.append(c == '\r' || c == '\n' ? ' ' : c);
        }
        return new ErrorRedisMessage(b.toString());
    }

    static RedisMessage integer(long v) {
        return new IntegerRedisMessage(v);
    }

    static RedisMessage bulk(String text) {
        return bulk(text.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code $<n> <bytes>}, or the null bulk string for null (an absent key's value). */
    static RedisMessage bulk(byte[] value) {
        return value == null ? NULL : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(value));
    }

    /** An array of bulk strings (for map-like replies: names and values alternating). */
    static RedisMessage bulkArray(List<String> items) {
        List<RedisMessage> children = new ArrayList<>(items.size());
        for (String s : items) {
            children.add(bulk(s));
        }
        return new ArrayRedisMessage(children);
    }

    static RedisMessage wrongArity(Command c) {
        return error("ERR wrong number of arguments for '" + c.wireName.toLowerCase(java.util.Locale.ROOT)
                + "' command");
    }
}
