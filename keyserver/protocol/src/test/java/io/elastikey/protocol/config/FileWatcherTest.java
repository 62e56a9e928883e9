package io.elastikey.protocol.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class FileWatcherTest {
    @TempDir
    Path dir;

    private List<Path> listing() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".pem")).sorted().toList();
        }
    }

    @Test
    void theFingerprintMovesWithEveryKindOfChangeAndOnlyThen() throws Exception {
        Path a = Files.writeString(dir.resolve("a.pem"), "first");
        Files.writeString(dir.resolve("b.pem"), "second");
        long before = FileWatcher.fingerprint(this::listing);
        assertThat(FileWatcher.fingerprint(this::listing)).isEqualTo(before);

        Files.writeString(a, "first, longer");
        long grown = FileWatcher.fingerprint(this::listing);
        assertThat(grown).isNotEqualTo(before);

        // The same size and time, another file put in its place: only the inode tells.
        FileTime time = Files.getLastModifiedTime(a);
        Path replacement = Files.writeString(dir.resolve("a.tmp"), "first, LONGER");
        Files.setLastModifiedTime(replacement, time);
        Files.move(replacement, a, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        long replaced = FileWatcher.fingerprint(this::listing);
        assertThat(replaced).isNotEqualTo(grown);

        Files.writeString(dir.resolve("c.pem"), "third");
        long added = FileWatcher.fingerprint(this::listing);
        assertThat(added).isNotEqualTo(replaced);
        Files.delete(dir.resolve("c.pem"));
        assertThat(FileWatcher.fingerprint(this::listing)).isEqualTo(replaced);
        assertThat(FileWatcher.fingerprint(() -> {
            throw new IOException("gone");
        })).isNotEqualTo(replaced);
    }

    @Test
    void aChangeRunsTheReloadOnceAndNoChangeNever() throws Exception {
        Path a = Files.writeString(dir.resolve("a.pem"), "first");
        AtomicInteger reloads = new AtomicInteger();
        try (FileWatcher watcher = new FileWatcher(Duration.ofMillis(50))) {
            watcher.watch("certificates", this::listing, reloads::incrementAndGet);
            Thread.sleep(300);
            assertThat(reloads).hasValue(0);

            // Replaced whole, as certificates are: a poll between a truncate and a write would see two changes.
            Path next = Files.writeString(dir.resolve("a.next"), "first, changed");
            Files.move(next, a, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (reloads.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(300);
            assertThat(reloads).hasValue(1);
        }
    }

    @Test
    void aSlowPollMakesTheWatcherWaitTenTimesAsLong() {
        assertThat(FileWatcher.nextDelayMillis(2_000, 40)).isEqualTo(2_000);
        assertThat(FileWatcher.nextDelayMillis(2_000, 3_000)).isEqualTo(30_000);
    }
}
