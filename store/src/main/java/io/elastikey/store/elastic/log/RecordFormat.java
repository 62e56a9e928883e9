// RecordFormat -- the on-disk layout of log segments and the records inside them.
package io.elastikey.store.elastic.log;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The byte layout of the append-only log. All integers are big-endian.
 *
 * <h2>Segment file</h2>
 * A segment is the file {@code NNNNNNNNNN.seg} (its id, ten decimal digits) in the store
 * directory. It opens with a 16-byte header, then records back to back:
 * <pre>
 *   0  8 bytes  magic "EKLOG\0\0\1"
 *   8  int      format version (1)
 *  12  int      segment id (must match the file name)
 *  16  records...
 * </pre>
 *
 * <h2>Record</h2>
 * <pre>
 *   0  int    body length B   (bytes from offset 8 to the record's end: 16 + K + V)
 *   4  int    CRC32C of the body (offsets 8 .. 8+B)
 *   8  byte   type: 1 = put, 2 = delete (a tombstone, V = 0)
 *   9  byte   reserved, 0
 *  10  short  key length K (unsigned)
 *  12  int    value length V
 *  16  long   sequence number (strictly increasing across the whole log)
 *  24  K bytes key
 *  24+K V bytes value
 * </pre>
 * A record is valid when its body length agrees with K and V, it fits in the file, the CRC
 * matches, and its sequence number is above the previous record's in the segment. Recovery stops at the first
 * invalid record of the last segment and truncates there: a write torn by a crash leaves exactly that, and so does
 * the end of the records in a reused segment file, whose older contents follow it (see {@code Log}: a reused file
 * starts with its new header and a zero record length, and its old records' sequence numbers are all lower).
 */
public final class RecordFormat {

    public static final long MAGIC = 0x454b4c4f47000001L; // "EKLOG\0\0\1"
    public static final int VERSION = 1;
    public static final int SEGMENT_HEADER_SIZE = 16;

    public static final int RECORD_HEADER_SIZE = 24;
    /** Bytes of the body before the key: type, reserved, key length, value length, sequence. */
    public static final int BODY_FIXED_SIZE = RECORD_HEADER_SIZE - 8;

    public static final byte TYPE_PUT = 1;
    public static final byte TYPE_DELETE = 2;

    private RecordFormat() {
    }

    /** Total bytes of a record with these key and value lengths. */
    public static int recordLength(int keyLength, int valueLength) {
        return RECORD_HEADER_SIZE + keyLength + valueLength;
    }

    /**
     * Writes a whole record into {@code buf} from its position, leaving the position after it.
     * The buffer must have {@link #recordLength} bytes remaining.
     */
    public static void encode(ByteBuffer buf, CRC32C crc, byte type, long sequence, byte[] key, byte[] value,
                              int valueLength) {
        int start = buf.position();
        int bodyLength = BODY_FIXED_SIZE + key.length + valueLength;
        buf.putInt(bodyLength);
        buf.putInt(0); // CRC, filled in below
        buf.put(type);
        buf.put((byte) 0);
        buf.putShort((short) key.length);
        buf.putInt(valueLength);
        buf.putLong(sequence);
        buf.put(key);
        if (valueLength > 0) {
            buf.put(value, 0, valueLength);
        }
        buf.putInt(start + 4, crc(crc, buf, start + 8, bodyLength));
    }

    /**
     * CRC32C of {@code length} bytes of {@code buf} from absolute index {@code from}, computed with
     * the caller's (reused) {@code crc}. Leaves the buffer's position and limit as found.
     */
    public static int crc(CRC32C crc, ByteBuffer buf, int from, int length) {
        int pos = buf.position();
        int lim = buf.limit();
        buf.limit(from + length).position(from);
        crc.reset();
        crc.update(buf);
        buf.limit(lim).position(pos);
        return (int) crc.getValue();
    }

    /** Writes a segment header into {@code buf} from its position. */
    public static void encodeSegmentHeader(ByteBuffer buf, int segmentId) {
        buf.putLong(MAGIC);
        buf.putInt(VERSION);
        buf.putInt(segmentId);
    }

    /**
     * The name a deleted segment's file is kept under for reuse ({@code NNNNNNNNNN.free}, its old id): not a segment
     * name, so nothing reads it as part of the log.
     */
    public static String recycledFileName(int segmentId) {
        return String.format("%010d.free", segmentId);
    }

    public static String segmentFileName(int segmentId) {
        return String.format("%010d.seg", segmentId);
    }

    /** The id in a segment file name, or -1 when the name is not one. */
    public static int parseSegmentFileName(String name) {
        if (name.length() != 14 || !name.endsWith(".seg")) {
            return -1;
        }
        try {
            long id = Long.parseLong(name.substring(0, 10));
            return id <= Integer.MAX_VALUE ? (int) id : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
