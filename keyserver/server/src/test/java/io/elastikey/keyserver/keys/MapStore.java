// MapStore -- a KeyValueStore over a ConcurrentHashMap: proves the repository needs nothing beyond the interface.
package io.elastikey.keyserver.keys;

import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreStats;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/** A complete in-memory store implementation (not a mock): the smallest thing that keeps the interface's contract. */
final class MapStore implements KeyValueStore {
    private final Map<ByteBuffer, byte[]> map = new ConcurrentHashMap<>();

    @Override
    public byte[] get(byte[] key) {
        byte[] value = map.get(ByteBuffer.wrap(key.clone()));
        return value == null ? null : value.clone();
    }

    @Override
    public int get(byte[] key, ByteBuffer dst) {
        byte[] value = get(key);
        if (value == null) {
            return NOT_FOUND;
        }
        if (value.length <= dst.remaining()) {
            dst.put(value);
        }
        return value.length;
    }

    @Override
    public void put(byte[] key, byte[] value) {
        map.put(ByteBuffer.wrap(key.clone()), value.clone());
    }

    @Override
    public boolean delete(byte[] key) {
        return map.remove(ByteBuffer.wrap(key)) != null;
    }

    @Override
    public boolean contains(byte[] key) {
        return map.containsKey(ByteBuffer.wrap(key));
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public void forEach(BiConsumer<byte[], byte[]> visitor) {
        map.forEach((k, v) -> {
            byte[] key = new byte[k.remaining()];
            k.duplicate().get(key);
            visitor.accept(key, v.clone());
        });
    }

    @Override
    public int maxValueSize() {
        return DEFAULT_MAX_VALUE_SIZE;
    }

    @Override
    public StoreStats stats() {
        return new StoreStats(map.size(), 0, 0, 0, 0, 0, 0, null);
    }

    @Override
    public void close() {
    }
}
