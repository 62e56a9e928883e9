// ChangeLog -- where a RedisStore keeps its change notices: a capped Redis stream under the store's prefix.
package io.elastikey.store.redis;

import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The stream {@code <prefix>changes}: each {@link RedisStore#announce} appends an entry whose field {@code notice}
 * holds the writer's notice, and each follower ({@link ChangeFollower}) reads the entries after the last one it saw.
 * A stream rather than a pub/sub channel because a follower that lost its connection can read what it missed.
 *
 * <p>The stream keeps about the newest {@value #LENGTH} entries ({@code XADD MAXLEN ~}); a follower away for longer
 * than that many notices forgets everything instead. Notices name keys, at most about 66 kB each, so the stream
 * holds a few hundred kB for ordinary removals and at most some 66 MB. The key is the store's own:
 * {@link #RESERVED} cannot be written or read through the store. {@code redis-cli XRANGE <prefix>changes - +} shows
 * what happened; an entry with the field {@code start} instead is a follower's marker, written when it found the
 * stream empty so that it has an entry to read on after.
 */
final class ChangeLog {
    static final int LENGTH = 1000;
    /** The store key of the stream, before the prefix. */
    static final byte[] RESERVED = "changes".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOTICE = "notice".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] START = "start".getBytes(StandardCharsets.US_ASCII);

    private final byte[] key;

    ChangeLog(byte[] prefix) {
        key = Arrays.copyOf(prefix, prefix.length + RESERVED.length);
        System.arraycopy(RESERVED, 0, key, prefix.length, RESERVED.length);
    }

    byte[] key() {
        return key;
    }

    /** {@code MAXLEN ~ LENGTH}: Redis trims whole macro nodes, which is cheap, so the stream holds a little more. */
    XAddArgs trimming() {
        return new XAddArgs().maxlen(LENGTH).approximateTrimming();
    }

    /** The body of an entry that holds {@code notice}. */
    static Map<byte[], byte[]> entry(byte[] notice) {
        return Map.of(NOTICE, notice);
    }

    /** The body of a follower's start marker. */
    static Map<byte[], byte[]> startMarker() {
        return Map.of(START, new byte[0]);
    }

    /** The notice an entry holds; {@code null} for a start marker or an entry some other writer put there. */
    static byte[] noticeOf(StreamMessage<byte[], byte[]> entry) {
        for (Map.Entry<byte[], byte[]> field : entry.getBody().entrySet()) {
            if (Arrays.equals(field.getKey(), NOTICE)) {
                return field.getValue();
            }
        }
        return null;
    }

    /** Whether {@code storeKey} (without the prefix) is the stream's. */
    static boolean isReserved(byte[] storeKey) {
        return storeKey.length == RESERVED.length && Arrays.equals(storeKey, RESERVED);
    }

    @Override
    public String toString() {
        return new String(key, StandardCharsets.UTF_8);
    }
}
