// FileTrees -- deletes a directory and everything under it: the one way throwaway stores, demo and benchmark data go.
package io.elastikey.protocol.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Removes whole trees: the warm-up's throwaway store, the demos' temporary directories, benchmark data sets. Links
 * inside the tree are removed as links, never followed, so a tree that points at a user's files leaves those alone.
 */
public final class FileTrees {

    private FileTrees() {
    }

    /**
     * Deletes {@code root} and everything under it; nothing when it does not exist. A {@code root} that is a file or a
     * link is deleted itself.
     *
     * @throws IOException when any entry cannot be deleted (what was deleted before it stays deleted)
     */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> all = Files.walk(root)) {
            deepestFirst = all.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (Path p : deepestFirst) {
            Files.deleteIfExists(p);
        }
    }
}
