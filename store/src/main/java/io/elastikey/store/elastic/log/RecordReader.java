// RecordReader -- positional reads of single records into pooled direct buffers, verified.
package io.elastikey.store.elastic.log;

import io.elastikey.store.CorruptRecordException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Reads one record at a known location and checks it before handing out its value: the length
 * fields must agree, the key must be the one asked for, and the CRC32C must match. A failed check
 * is a {@link CorruptRecordException} for that key only.
 *
 * <p>Each thread reads into its own direct buffer (grown to the largest record it has read), so a
 * lookup costs one {@code pread} and no garbage. The returned view is valid until the same thread
 * reads again. A segment with an {@code O_DIRECT} channel is read in whole aligned blocks around the
 * record (a 4 KiB value usually spans two), into an aligned buffer, past the page cache.
 */
public final class RecordReader {

    private static final ThreadLocal<ReadBuffer> BUFFERS = ThreadLocal.withInitial(ReadBuffer::new);

    private RecordReader() {
    }

    /**
     * Reads the put record of {@code key} at {@code offset} of {@code segment}.
     *
     * @return this thread's buffer with position..limit spanning the value
     */
    public static ByteBuffer readValue(Segment segment, long offset, int length, byte[] key) throws IOException {
        return read(segment, offset, length, key, true);
    }

    /**
     * {@link #readValue} at a location that may be wrong (a hint from a table that keeps only part of each key's
     * hash): a record that fails a check is not there, rather than damaged, so the answer is null and no exception.
     */
    public static ByteBuffer readValueIfThere(Segment segment, long offset, int length, byte[] key)
            throws IOException {
        return read(segment, offset, length, key, false);
    }

    private static ByteBuffer read(Segment segment, long offset, int length, byte[] key, boolean trusted)
            throws IOException {
        if (!trusted && (offset < 0 || length < RecordFormat.RECORD_HEADER_SIZE + key.length)) {
            return null;
        }
        ReadBuffer rb = BUFFERS.get();
        FileChannel direct = segment.directChannel();
        ByteBuffer buf;
        int base;
        int n;
        if (direct == null) {
            buf = rb.ensure(length);
            base = 0;
            n = readFully(segment.channel(), buf, offset);
        } else {
            int align = segment.directAlignment();
            long start = offset - offset % align;
            base = (int) (offset - start);
            buf = rb.ensureAligned(roundUp(base + length, align), align);
            n = readDirect(direct, buf, start) - base;
        }
        if (n < length) {
            return failed(trusted, segment, offset, key, "record extends past the end of the file");
        }
        int keyLength = Short.toUnsignedInt(buf.getShort(base + 10));
        int valueLength = buf.getInt(base + 12);
        if (buf.getInt(base) != length - 8 || buf.get(base + 8) != RecordFormat.TYPE_PUT
                || keyLength != key.length || valueLength != length - RecordFormat.RECORD_HEADER_SIZE - keyLength) {
            return failed(trusted, segment, offset, key, "record header does not match the index");
        }
        if (!keyEquals(buf, base + RecordFormat.RECORD_HEADER_SIZE, key)) {
            return failed(trusted, segment, offset, key, "record holds a different key");
        }
        if (RecordFormat.crc(rb.crc, buf, base + 8, length - 8) != buf.getInt(base + 4)) {
            return failed(trusted, segment, offset, key, "CRC32C mismatch");
        }
        int valueStart = base + RecordFormat.RECORD_HEADER_SIZE + keyLength;
        buf.limit(valueStart + valueLength).position(valueStart);
        return buf;
    }

    /**
     * An {@code O_DIRECT} read of whole aligned blocks from the aligned {@code position}: a short read means the
     * end of the file (the last block may be partial), so it stops there rather than read again from an
     * unaligned place.
     */
    private static int readDirect(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        int total = 0;
        while (buf.hasRemaining()) {
            int want = buf.remaining();
            int n = ch.read(buf, position + total);
            if (n <= 0) {
                break;
            }
            total += n;
            if (n < want) {
                break;
            }
        }
        return total;
    }

    private static int roundUp(int n, int align) {
        return (n + align - 1) / align * align;
    }

    static int readFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        int total = 0;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, position + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    private static boolean keyEquals(ByteBuffer buf, int at, byte[] key) {
        for (int i = 0; i < key.length; i++) {
            if (buf.get(at + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    /** Throws a {@link CorruptRecordException} for a trusted location; for a hint, returns null. */
    private static ByteBuffer failed(boolean trusted, Segment s, long offset, byte[] key, String why) {
        if (trusted) {
            throw corrupt(s, offset, key, why);
        }
        return null;
    }

    private static CorruptRecordException corrupt(Segment s, long offset, byte[] key, String why) {
        return new CorruptRecordException("corrupt record for key of " + key.length + " bytes (hash "
                + Integer.toHexString(java.util.Arrays.hashCode(key)) + ") in " + s + " at offset " + offset
                + ": " + why);
    }

    /** A thread's read buffer and CRC engine. */
    static final class ReadBuffer {
        private ByteBuffer buf = ByteBuffer.allocateDirect(8192);
        private final CRC32C crc = new CRC32C();

        /** For {@code O_DIRECT}: its address is a multiple of {@code align}; made on this thread's first such read. */
        private ByteBuffer aligned;

        ByteBuffer ensure(int length) {
            if (buf.capacity() < length) {
                buf = ByteBuffer.allocateDirect(Math.max(length, buf.capacity() * 2));
            }
            buf.clear().limit(length);
            return buf;
        }

        ByteBuffer ensureAligned(int length, int align) {
            if (aligned == null || aligned.capacity() < length) {
                int capacity = Math.max(length, aligned == null ? 8192 : aligned.capacity() * 2);
                aligned = ByteBuffer.allocateDirect(capacity + align).alignedSlice(align);
            }
            aligned.clear().limit(length);
            return aligned;
        }
    }
}
