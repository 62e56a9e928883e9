// Checkpoint -- the small file that says up to where the persisted index reflects the log.
package io.elastikey.store.elastic.index;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.log.DirectorySync;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The file {@code checkpoint}: 36 bytes, big-endian.
 * <pre>
 *   0  long  magic "EKCKPT01"
 *   8  int   segment id of the log position
 *  12  long  offset in that segment
 *  20  long  sequence number of the last record before that position
 *  28  int   1 when the store was closed cleanly after writing it, else 0
 *  32  int   CRC32C of bytes 0..32
 * </pre>
 * Written to a temporary file, fsynced, renamed over the old one and the directory fsynced, so a
 * crash leaves either the old checkpoint or the new one, never a mix.
 *
 * @param segmentId the segment holding the first record the index may not reflect
 * @param offset that record's offset
 * @param sequence the last sequence number the index reflects
 * @param clean whether the store closed cleanly (then the index needs no recovery)
 */
public record Checkpoint(int segmentId, long offset, long sequence, boolean clean) {

    private static final long MAGIC = 0x454b434b50543031L; // "EKCKPT01"
    private static final int SIZE = 36;
    public static final String FILE_NAME = "checkpoint";

    /** The checkpoint in {@code dir}, or null when there is none. */
    public static Checkpoint read(Path dir) throws IOException {
        byte[] b;
        try {
            b = Files.readAllBytes(dir.resolve(FILE_NAME));
        } catch (NoSuchFileException e) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        if (b.length != SIZE || buf.getLong(0) != MAGIC || buf.getInt(32) != crc(buf)) {
            throw new StoreException("checkpoint file in " + dir + " is damaged; delete it and index.cm to "
                    + "rebuild the index from the log");
        }
        return new Checkpoint(buf.getInt(8), buf.getLong(12), buf.getLong(20), buf.getInt(28) == 1);
    }

    /** Atomically replaces the checkpoint in {@code dir}. */
    public void write(Path dir) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(SIZE);
        buf.putLong(MAGIC).putInt(segmentId).putLong(offset).putLong(sequence).putInt(clean ? 1 : 0);
        buf.putInt(32, crc(buf));
        buf.clear();
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        DirectorySync.sync(dir);
    }

    public Checkpoint withClean(boolean c) {
        return new Checkpoint(segmentId, offset, sequence, c);
    }

    private static int crc(ByteBuffer buf) {
        CRC32C c = new CRC32C();
        c.update(buf.array(), 0, 32);
        return (int) c.getValue();
    }
}
