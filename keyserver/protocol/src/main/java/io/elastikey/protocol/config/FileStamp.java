// FileStamp -- what tells whether a file changed, as one number: its modification time, size and identity.
package io.elastikey.protocol.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * A file's modification time, size and identity (device and inode) digested into 64 bits. Identity counts because
 * certificates are usually replaced by renaming a new file over the old one, which can keep the size and, to the
 * millisecond, the time. Shared by {@link FileWatcher} (has anything in a directory changed?) and by readers of large
 * directories that reuse what they read from files whose stamp is the same (the edge's certificates).
 */
public final class FileStamp {
    /** The stamp of a file that could not be examined (gone between the listing and the look). */
    public static final long MISSING = -1;

    private FileStamp() {
    }

    /** The stamp of {@code file}, following symbolic links; {@link #MISSING} when it cannot be read. */
    public static long of(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            long stamp = mix(a.lastModifiedTime().toMillis(), a.size());
            return mix(stamp, Objects.hashCode(a.fileKey()));
        } catch (IOException e) {
            return MISSING;
        }
    }

    /**
     * Folds {@code value} into {@code digest} so that every bit of either moves about half of the result's. The digest
     * is scrambled before the value joins it: were the two simply combined first, a change in one could cancel the
     * same change in the other (a time one bit later and a size eight bytes longer gave the same stamp).
     */
    public static long mix(long digest, long value) {
        return scramble(scramble(digest) + value);
    }

    /** SplitMix64's finalizer: a bijection whose every input bit moves about half of the output's. */
    private static long scramble(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
