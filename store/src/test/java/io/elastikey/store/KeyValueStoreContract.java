// KeyValueStoreContract -- the behaviour every KeyValueStore promises, run against each implementation.
package io.elastikey.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link KeyValueStore} contract as tests. A subclass opens an empty store per test; every store
 * implementation runs the same suite.
 */
public abstract class KeyValueStoreContract {

    protected KeyValueStore store;

    /** An empty store, fresh for each test; the suite closes it. */
    protected abstract KeyValueStore openEmpty() throws Exception;

    @BeforeEach
    void open() throws Exception {
        store = openEmpty();
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    protected static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetContainsDeleteRoundTrip() {
        assertThat(store.get(b("k1"))).isNull();
        store.put(b("k1"), b("v1"));
        assertThat(store.get(b("k1"))).isEqualTo(b("v1"));
        assertThat(store.contains(b("k1"))).isTrue();
        assertThat(store.size()).isEqualTo(1);
        store.put(b("k1"), b("v2"));
        assertThat(store.get(b("k1"))).isEqualTo(b("v2"));
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.delete(b("k1"))).isTrue();
        assertThat(store.delete(b("k1"))).isFalse();
        assertThat(store.get(b("k1"))).isNull();
        assertThat(store.contains(b("k1"))).isFalse();
        assertThat(store.size()).isZero();
    }

    @Test
    void getIntoBufferCopiesOnlyWhenItFits() {
        store.put(b("k"), b("hello"));
        ByteBuffer small = ByteBuffer.allocate(3);
        assertThat(store.get(b("k"), small)).isEqualTo(5);
        assertThat(small.position()).isZero();
        ByteBuffer direct = ByteBuffer.allocateDirect(16);
        direct.position(2);
        assertThat(store.get(b("k"), direct)).isEqualTo(5);
        assertThat(direct.position()).isEqualTo(7);
        byte[] copied = new byte[5];
        direct.position(2);
        direct.get(copied);
        assertThat(copied).isEqualTo(b("hello"));
        assertThat(store.get(b("absent"), direct)).isEqualTo(KeyValueStore.NOT_FOUND);
    }

    @Test
    void binaryKeysAndValuesSurviveIntact() {
        byte[] key = {0, (byte) 0xff, '*', '?', '[', 0, '\r', '\n'};
        byte[] value = new byte[4096];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31);
        }
        store.put(key, value);
        assertThat(store.get(key)).isEqualTo(value);
        store.put(b("empty"), new byte[0]);
        assertThat(store.get(b("empty"))).isEmpty();
        assertThat(store.contains(b("empty"))).isTrue();
    }

    @Test
    void callersMayReuseTheirArrays() {
        byte[] key = b("reused");
        byte[] value = b("first");
        store.put(key, value);
        Arrays.fill(value, (byte) 'x');
        key[0] = 'R';
        assertThat(store.get(b("reused"))).isEqualTo(b("first"));
        byte[] read = store.get(b("reused"));
        read[0] = 'F';
        assertThat(store.get(b("reused"))).isEqualTo(b("first"));
    }

    @Test
    void limitsAreIllegalArgumentsNamingTheLimit() {
        assertThatThrownBy(() -> store.put(new byte[0], b("v")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxKeySize");
        byte[] tooLarge = new byte[store.maxValueSize() + 1];
        assertThatThrownBy(() -> store.put(b("big"), tooLarge))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxValueSize");
        assertThatThrownBy(() -> store.putAll(List.of(Map.entry(b("ok"), b("v")), Map.entry(b("big"), tooLarge))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.contains(b("big"))).isFalse();
    }

    @Test
    void putAllWritesEveryEntryInOrder() {
        List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            entries.add(Map.entry(b("bulk-" + i), b("value-" + i)));
        }
        entries.add(Map.entry(b("bulk-7"), b("last write wins")));
        store.putAll(entries);
        assertThat(store.size()).isEqualTo(2500);
        assertThat(store.get(b("bulk-7"))).isEqualTo(b("last write wins"));
        assertThat(store.get(b("bulk-2499"))).isEqualTo(b("value-2499"));
        store.putAll(List.of());
    }

    @Test
    void forEachVisitsEveryEntryWithFreshCopies() {
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 1500; i++) {
            store.put(b("each-" + i), b("v" + i));
            expected.put("each-" + i, "v" + i);
        }
        store.delete(b("each-3"));
        expected.remove("each-3");
        Map<String, String> seen = new HashMap<>();
        List<byte[]> kept = new ArrayList<>();
        store.forEach((k, v) -> {
            assertThat(seen.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)))
                    .as("visited once").isNull();
            kept.add(k);
        });
        assertThat(seen).isEqualTo(expected);
        assertThat(kept).doesNotHaveDuplicates();
    }

    @Test
    void forEachOnAnEmptyStoreVisitsNothing() {
        store.forEach((k, v) -> {
            throw new AssertionError("visited " + new String(k, StandardCharsets.UTF_8));
        });
        assertThat(store.size()).isZero();
    }

    @Test
    void statsCountEveryLookup() {
        store.put(b("s"), b("v"));
        StoreStats before = store.stats();
        store.get(b("s"));
        store.get(b("s"), ByteBuffer.allocate(8));
        store.get(b("nope"));
        StoreStats after = store.stats();
        // What a hit is differs (ElasticStore: answered from memory; Redis: found); every lookup is one or the other.
        assertThat(after.hits() + after.misses() - before.hits() - before.misses()).isEqualTo(3);
        assertThat(after.hitRatio()).isBetween(0.0, 1.0);
    }

    @Test
    void closeIsIdempotentAndLaterCallsFail() {
        store.put(b("k"), b("v"));
        store.close();
        store.close();
        assertThatThrownBy(() -> store.get(b("k"))).isInstanceOf(IllegalStateException.class);
        store = null;
    }

    @Test
    void anOpenStoreIsAvailable() {
        assertThat(store.available()).isTrue();
    }

    @Test
    void getAllVisitsEachStoredKeyOnceWithItsLatestValueAndSkipsTheRest() {
        List<byte[]> asked = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            store.put(b("bulk-" + i), b("first-" + i));
            asked.add(b("bulk-" + i));
        }
        for (int i = 0; i < 300; i += 7) {
            store.put(b("bulk-" + i), b("second-" + i)); // a newer record, later in a log
        }
        for (int i = 0; i < 300; i += 11) {
            store.delete(b("bulk-" + i));
        }
        asked.add(b("never-stored"));
        for (int i = 0; i < 300; i += 5) {
            store.get(b("bulk-" + i)); // some read, so a store with a memory tier may hold them there
        }

        Map<String, String> seen = new HashMap<>();
        store.getAll(asked, (key, value) -> {
            String previous = seen.put(new String(key, StandardCharsets.UTF_8), new String(value, StandardCharsets.UTF_8));
            assertThat(previous).as("visited twice").isNull();
        });

        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            if (i % 11 != 0) {
                expected.put("bulk-" + i, (i % 7 == 0 ? "second-" : "first-") + i);
            }
        }
        assertThat(seen).isEqualTo(expected);
        store.getAll(List.of(), (key, value) -> {
            throw new AssertionError("nothing was asked for");
        });
    }
}
