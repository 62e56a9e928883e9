// OverwrittenKeys -- keys written once and then seven in ten of them again: segments with garbage to compact.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The workload of the compaction and segment-reuse tests: {@code key-0 .. key-N} written with 1,000-byte values
 * ({@link #writeAll}), then seven keys in ten overwritten ({@link #overwriteMost}), so the first round's segments hold
 * 70% garbage and some live records to move. Each value says its key and round, so a record read from the wrong
 * place or an old version brought back shows in {@link #assertLatest}.
 */
final class OverwrittenKeys {
    private OverwrittenKeys() {
    }

    static void writeAll(ElasticStore store, int keys) {
        for (int i = 0; i < keys; i++) {
            store.put(key(i), value(i, 1));
        }
    }

    static void overwriteMost(ElasticStore store, int keys) {
        for (int i = 0; i < keys; i++) {
            if (overwritten(i)) {
                store.put(key(i), value(i, 2));
            }
        }
    }

    /** Every key holds its value of the last round that wrote it. */
    static void assertLatest(ElasticStore store, int keys) {
        for (int i = 0; i < keys; i++) {
            assertThat(store.get(key(i))).as("key %d", i).isEqualTo(value(i, overwritten(i) ? 2 : 1));
        }
    }

    static boolean overwritten(int i) {
        return i % 10 < 7;
    }

    static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(int i, int round) {
        byte[] v = new byte[1000];
        Arrays.fill(v, (byte) (i * 7 + round));
        v[0] = (byte) round;
        return v;
    }
}
