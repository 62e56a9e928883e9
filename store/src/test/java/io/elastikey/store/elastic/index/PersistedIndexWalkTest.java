// PersistedIndexWalkTest -- the resizer's garbage-free index walk visits what the copying walk visits.
package io.elastikey.store.elastic.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PersistedIndexWalkTest {

    @TempDir
    Path dir;

    @Test
    void visitsEveryEntryOnceWithItsKeyAndLocationWhateverTheKeyLengths() throws Exception {
        try (PersistedIndex index = PersistedIndex.open(dir.resolve("index.cm"), 20_000, 12, false)) {
            Map<String, String> expected = new HashMap<>();
            for (int i = 0; i < 10_000; i++) {
                String key = "k".repeat(1 + i % 40) + i; // lengths 2 to 45: keys of one length share an array
                index.put(key.getBytes(StandardCharsets.UTF_8), i % 7, i, 100 + i);
                expected.put(key, (i % 7) + "/" + i + "/" + (100 + i));
            }

            Map<String, String> copying = new HashMap<>();
            index.forEach((k, loc) -> copying.put(new String(k, StandardCharsets.UTF_8), describe(loc)));
            Map<String, String> reusing = new HashMap<>();
            AtomicInteger visits = new AtomicInteger();
            index.forEachReusingKeys((k, loc) -> {
                visits.incrementAndGet();
                reusing.put(new String(k, StandardCharsets.UTF_8), describe(loc));
            }, () -> false);

            assertThat(copying).isEqualTo(expected);
            assertThat(reusing).isEqualTo(expected);
            assertThat(visits).hasValue(expected.size());
        }
    }

    @Test
    void stopsAtTheNextSegmentOnceDone() throws Exception {
        try (PersistedIndex index = PersistedIndex.open(dir.resolve("index.cm"), 20_000, 12, false)) {
            for (int i = 0; i < 10_000; i++) {
                index.put(("key-" + i).getBytes(StandardCharsets.UTF_8), 1, i, 10);
            }
            AtomicInteger visits = new AtomicInteger();
            index.forEachReusingKeys((k, loc) -> visits.incrementAndGet(), () -> visits.get() > 0);

            assertThat(visits.get()).isPositive().isLessThan(10_000);
        }
    }

    private static String describe(Location loc) {
        return loc.segmentId + "/" + loc.offset + "/" + loc.length;
    }
}
