// LiveBytesFile -- each segment's live bytes as a clean close left them, so the next open need not walk the index.
package io.elastikey.store.elastic;

import io.elastikey.store.elastic.log.Log;
import io.elastikey.store.elastic.log.Segment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.CRC32C;

/**
 * The file {@code live-bytes}, big-endian: magic "EKLIVE01", the clean checkpoint's sequence (i64), the segment count
 * (i32), then per segment its id (i32), size (i64) and live bytes (i64), and a CRC32C of everything before it.
 *
 * <p>Why: an open otherwise counts every segment's live bytes (the compactor's input) by walking the whole index,
 * 1.5 s of a key server's start at a million keys. A clean close writes the counts after its clean checkpoint; the
 * next open uses them only when that checkpoint is clean, nothing was replayed after it, and the log holds exactly the
 * segments listed, with the sizes listed. Anything else (a crash, a write after the close, a damaged or foreign file)
 * is a walk, as before. The file is read once and deleted, so it never outlives the state it describes. Counts only
 * steer which segments compaction picks; compaction itself checks each record against the index.
 */
final class LiveBytesFile {
    static final String FILE_NAME = "live-bytes";
    private static final long MAGIC = 0x454b4c4956453031L; // "EKLIVE01"
    private static final int HEADER = 8 + 8 + 4;
    private static final int PER_SEGMENT = 4 + 8 + 8;

    private LiveBytesFile() {
    }

    /** Writes the counts of {@code segments} as of the clean checkpoint at {@code sequence} (temp file, rename). */
    static void write(Path dir, long sequence, Segment[] segments) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(HEADER + segments.length * PER_SEGMENT + 4);
        buf.putLong(MAGIC).putLong(sequence).putInt(segments.length);
        for (Segment s : segments) {
            buf.putInt(s.id()).putLong(s.size()).putLong(s.liveBytes());
        }
        buf.putInt(crc(buf.array(), buf.position()));
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        Files.write(tmp, buf.array());
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Adds the saved counts to {@code log}'s segments when the file describes exactly this log at {@code sequence};
     * returns whether it did (nothing is added otherwise). Deletes the file either way.
     */
    static boolean apply(Path dir, long sequence, Log log) throws IOException {
        byte[] bytes = readAndDelete(dir);
        if (bytes == null || bytes.length < HEADER + 4) {
            return false;
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int count = buf.getInt(16);
        Segment[] segments = log.segments();
        if (buf.getLong(0) != MAGIC || buf.getLong(8) != sequence || count != segments.length
                || bytes.length != HEADER + count * PER_SEGMENT + 4
                || buf.getInt(bytes.length - 4) != crc(bytes, bytes.length - 4)) {
            return false;
        }
        long[] live = new long[count];
        buf.position(HEADER);
        for (int i = 0; i < count; i++) {
            int id = buf.getInt();
            long size = buf.getLong();
            live[i] = buf.getLong();
            if (segments[i].id() != id || segments[i].size() != size || live[i] < 0 || live[i] > size) {
                return false;
            }
        }
        for (int i = 0; i < count; i++) {
            segments[i].addLive(live[i]);
        }
        return true;
    }

    /** Removes a file a walk made stale. */
    static void delete(Path dir) throws IOException {
        Files.deleteIfExists(dir.resolve(FILE_NAME));
    }

    private static byte[] readAndDelete(Path dir) throws IOException {
        try {
            return Files.readAllBytes(dir.resolve(FILE_NAME));
        } catch (NoSuchFileException e) {
            return null;
        } finally {
            delete(dir);
        }
    }

    private static int crc(byte[] bytes, int length) {
        CRC32C c = new CRC32C();
        c.update(bytes, 0, length);
        return (int) c.getValue();
    }
}
