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

    /** Folds {@code value} into {@code digest} so that every bit of either moves about half of the result's. */
    public static long mix(long digest, long value) {
        long h = (digest ^ value) * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }
}
