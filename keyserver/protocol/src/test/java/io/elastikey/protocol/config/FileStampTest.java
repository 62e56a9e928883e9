package io.elastikey.protocol.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class FileStampTest {
    @TempDir
    Path dir;

    /** A file rewritten within a few milliseconds: its time and size move together, often in the same bits. */
    @Test
    void aTimeAndASizeThatChangeInTheSameBitsDoNotCancel() {
        for (long millis = 1_765_000_000_000L; millis < 1_765_000_010_000L; millis++) {
            for (long bit = 1; bit <= 1 << 12; bit <<= 1) {
                long size = 5;
                assertThat(FileStamp.mix(millis ^ bit, size ^ bit))
                        .as("time %d and size %d against one bit of each flipped", millis, size)
                        .isNotEqualTo(FileStamp.mix(millis, size));
            }
        }
    }

    @Test
    void neighbouringInputsGiveDistinctDigests() {
        Set<Long> seen = new HashSet<>();
        for (long digest = 0; digest < 256; digest++) {
            for (long value = 0; value < 256; value++) {
                seen.add(FileStamp.mix(digest, value));
            }
        }
        assertThat(seen).hasSize(256 * 256);
    }

    @Test
    void aFileStampMovesWithItsSizeAtTheSameTime() throws Exception {
        Path file = Files.writeString(dir.resolve("a.pem"), "first");
        FileTime time = Files.getLastModifiedTime(file);
        long before = FileStamp.of(file);
        assertThat(FileStamp.of(file)).isEqualTo(before);

        Files.writeString(file, "first, longer");
        Files.setLastModifiedTime(file, time);
        assertThat(FileStamp.of(file)).isNotEqualTo(before);
    }

    @Test
    void aFileThatIsGoneHasTheMissingStamp() {
        assertThat(FileStamp.of(dir.resolve("gone.pem"))).isEqualTo(FileStamp.MISSING);
    }
}
