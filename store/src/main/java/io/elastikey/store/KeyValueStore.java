// KeyValueStore -- the one storage API of Elastikey: private keys and edge content both go through it.
package io.elastikey.store;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BiConsumer;

/**
 * A thread-safe map from byte-string keys to byte-string values.
 *
 * <p>Keys and values are plain {@code byte[]} so the key server can keep sealed key records and the
 * edge can keep HTTP bodies without a codec layer. Implementations never keep a reference to an
 * array passed in or handed out: callers may reuse their arrays.
 *
 * <p>{@link #get(byte[], ByteBuffer)} exists for the hot path: a caller with a reusable buffer
 * reads a value without allocating.
 */
public interface KeyValueStore extends AutoCloseable {

    /** Returned by {@link #get(byte[], ByteBuffer)} when the key is absent. */
    int NOT_FOUND = -1;

    /** Default limit on a value's size: 1 MiB. */
    int DEFAULT_MAX_VALUE_SIZE = 1 << 20;

    /** The value of {@code key}, or {@code null} when it is absent. */
    byte[] get(byte[] key);

    /**
     * Copies the value of {@code key} into {@code dst} at its position, advancing it.
     *
     * @return the value's length, or {@link #NOT_FOUND}. When the length exceeds
     *     {@code dst.remaining()} nothing is copied and the position is unchanged, so the caller can
     *     retry with a larger buffer.
     */
    int get(byte[] key, ByteBuffer dst);

    /**
     * Stores {@code value} under {@code key}. Returns once the write is as durable as the store
     * promises (for {@link io.elastikey.store.elastic.ElasticStore}: its fsync policy).
     *
     * @throws IllegalArgumentException when the key or value exceeds the store's limits; the
     *     message names the limit
     */
    void put(byte[] key, byte[] value);

    /**
     * Stores every entry, in order. An implementation may make the whole batch durable at once
     * (one fsync instead of one per entry), which is what bulk loads want; each entry is still
     * written atomically, but a crash may keep a prefix of the batch.
     */
    default void putAll(List<? extends Map.Entry<byte[], byte[]>> entries) {
        for (Map.Entry<byte[], byte[]> e : entries) {
            put(e.getKey(), e.getValue());
        }
    }

    /** Removes {@code key}; returns whether it was present. Durable like {@link #put}. */
    boolean delete(byte[] key);

    boolean contains(byte[] key);

    /** The number of keys. */
    long size();

    /**
     * Visits every entry. Weakly consistent: entries written or removed during the walk may or may
     * not be seen, but each entry seen has a value the key held at some moment during the walk.
     * The arrays passed to the visitor are fresh copies the visitor may keep.
     */
    void forEach(BiConsumer<byte[], byte[]> visitor);

    /**
     * Reads many keys for a bulk reader, in whatever order the store reads fastest, and visits each key found with
     * its value (keys not found are not visited). Not counted as lookups and not admitted to a memory tier: a bulk
     * read says nothing of what clients ask for. Weakly consistent, like {@link #forEach}: a key written or removed
     * during the call may be seen with its old value. The arrays passed to the visitor are fresh copies it may keep.
     * This default reads them one by one, in the order given.
     */
    default void getAll(List<byte[]> keys, BiConsumer<byte[], byte[]> visitor) {
        for (byte[] key : keys) {
            byte[] value = get(key);
            if (value != null) {
                visitor.accept(key, value);
            }
        }
    }

    /** The largest value {@link #put} accepts, in bytes. */
    int maxValueSize();

    /** A point-in-time view of sizes, memory use, hit ratio and lookup latency. */
    StoreStats stats();

    /**
     * Whether the store can serve requests right now, for readiness checks. Cheap and never blocking: an embedded
     * store always can; a remote one answers from a recent, cached probe.
     */
    default boolean available() {
        return true;
    }

    /**
     * A number that changes with every write the store takes and that the same store, reopened, reports again; empty
     * when the store keeps none (this default, and Redis). What lets a copy of its contents saved beside it (the key
     * server's cache snapshot) tell that nothing was written since the copy was made.
     */
    default OptionalLong writeSequence() {
        return OptionalLong.empty();
    }

    /**
     * Tells the other clients of a shared store that entries changed, so that what they keep from it (the key
     * server's parsed-key cache) forgets them: {@code notice} is the writer's own message, delivered to every
     * {@link #follow} of the same store. A store with one owner (this default, ElasticStore) has nobody to tell.
     *
     * @throws StoreException when the notice could not be sent
     */
    default void announce(byte[] notice) {
    }

    /**
     * Hands {@code listener} the notices other clients {@link #announce}, until the returned handle is closed;
     * {@link ChangeListener#missedSome} when notices may have been lost meanwhile (a broken connection, once it is
     * back). A store nobody else writes (this default) never calls it.
     */
    default AutoCloseable follow(ChangeListener listener) {
        return () -> {
        };
    }

    /** What a {@link #follow} of a shared store hears. Called on the store's own threads: keep it short. */
    interface ChangeListener {
        void announced(byte[] notice);

        /** Notices may have been lost: forget everything kept from the store. */
        void missedSome();
    }

    /** Flushes what the store buffers and releases files and memory. Idempotent. */
    @Override
    void close();
}
