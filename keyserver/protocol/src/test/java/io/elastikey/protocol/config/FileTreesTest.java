package io.elastikey.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {

    @TempDir
    Path tmp;

    @Test
    void aNestedTreeGoesWhole() throws IOException {
        Path root = tmp.resolve("root");
        Files.createDirectories(root.resolve("a/b/c"));
        Files.writeString(root.resolve("a/one"), "1");
        Files.writeString(root.resolve("a/b/c/two"), "2");
        Files.createDirectories(root.resolve("empty"));

        FileTrees.delete(root);

        assertThat(root).doesNotExist();
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void aMissingTreeIsNothingToDo() throws IOException {
        FileTrees.delete(tmp.resolve("never-made"));
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void aSingleFileIsDeletedItself() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        FileTrees.delete(file);
        assertThat(file).doesNotExist();
    }

    @Test
    void aLinkInsideIsRemovedButWhatItPointsAtStays() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("users-files"));
        Path precious = Files.writeString(outside.resolve("precious"), "keep me");
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.createSymbolicLink(root.resolve("link"), outside);

        FileTrees.delete(root);

        assertThat(root).doesNotExist();
        assertThat(precious).hasContent("keep me");
    }
}
