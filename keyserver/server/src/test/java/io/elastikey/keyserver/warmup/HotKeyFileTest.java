package io.elastikey.keyserver.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HotKeyFileTest {
    private static final String SHA1 = "0123456789abcdef0123456789abcdef01234567";
    private static final String SHA256 = "ab".repeat(32);

    @TempDir
    Path dir;

    @Test
    void identifiersRoundTripInOrder() throws Exception {
        HotKeyFile file = new HotKeyFile(dir.resolve("hot-keys"));
        file.write(List.of(SHA256, SHA1));
        assertThat(file.read(10)).containsExactly(SHA256, SHA1);
        assertThat(file.read(1)).containsExactly(SHA256);
        assertThat(dir.resolve("hot-keys.tmp")).doesNotExist();
    }

    @Test
    void aMissingFileIsAColdStart() throws Exception {
        assertThat(new HotKeyFile(dir.resolve("absent")).read(10)).isEmpty();
    }

    @Test
    void linesThatAreNotIdentifiersAreSkipped() throws Exception {
        Path path = dir.resolve("hot-keys");
        Files.writeString(path, "# comment\n\n" + SHA1 + "\nzz" + SHA1.substring(2) + "\n" + SHA1 + "0\n"
                + SHA256.toUpperCase() + "\n");
        assertThat(new HotKeyFile(path).read(10)).containsExactly(SHA1, SHA256.toUpperCase());
    }

    @Test
    void writingReplacesTheWholeFile() throws Exception {
        HotKeyFile file = new HotKeyFile(dir.resolve("sub/hot-keys"));
        file.write(List.of(SHA1, SHA256));
        file.write(List.of(SHA256));
        assertThat(file.read(10)).containsExactly(SHA256);
    }
}
