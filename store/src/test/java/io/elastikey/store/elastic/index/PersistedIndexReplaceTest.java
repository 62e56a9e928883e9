// PersistedIndexReplaceTest -- replace: a put that reports the location it replaced, in one query.
package io.elastikey.store.elastic.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PersistedIndexReplaceTest {

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void insertsAnAbsentKeyAndReportsAndReplacesAPresentOne() throws Exception {
        Location previous = new Location();
        Location now = new Location();
        try (PersistedIndex index = PersistedIndex.open(dir.resolve("index.cm"), 10_000, 8, false)) {
            for (int i = 0; i < 5_000; i++) {
                previous.set(-1, -1, -1);
                assertThat(index.replace(key(i), 1, i, 100 + i, previous)).as("key %d absent", i).isFalse();
                assertThat(previous.segmentId).as("left alone when absent").isEqualTo(-1);
            }
            for (int i = 0; i < 5_000; i++) {
                assertThat(index.replace(key(i), 2, 2 * i, 200 + i, previous)).as("key %d present", i).isTrue();
                assertThat(previous.sameAs(1, i)).isTrue();
                assertThat(previous.length).isEqualTo(100 + i);
                assertThat(index.lookup(key(i), now)).isTrue();
                assertThat(now.sameAs(2, 2 * i)).isTrue();
                assertThat(now.length).isEqualTo(200 + i);
            }
            assertThat(index.size()).isEqualTo(5_000);
        }
        try (PersistedIndex index = PersistedIndex.open(dir.resolve("index.cm"), 10_000, 8, false)) {
            assertThat(index.lookup(key(4_999), now)).as("persisted").isTrue();
            assertThat(now.sameAs(2, 9_998)).isTrue();
        }
    }
}
