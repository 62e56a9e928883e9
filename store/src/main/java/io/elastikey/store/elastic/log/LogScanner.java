// LogScanner -- sequential walk over a segment's records, for recovery, rebuild and compaction.
package io.elastikey.store.elastic.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Reads a segment front to back in large chunks and hands each valid record to a visitor. The
 * walk stops at the end of the file or at the first record that fails a check, and reports which:
 * for the newest segment a failed check is a torn write to truncate; elsewhere it is damage.
 */
public final class LogScanner {

    private static final int CHUNK = 1 << 20;

    private LogScanner() {
    }

    /** Receives records in log order. The record object is reused between calls. */
    @FunctionalInterface
    public interface Visitor {
        void visit(ScannedRecord record) throws IOException;
    }

    /**
     * @param validEnd offset just past the last valid record
     * @param problem null when the scan reached the end of the file cleanly, else what was wrong
     * @param lastSequence the sequence number of the last valid record, or 0 when none
     */
    public record Result(long validEnd, String problem, long lastSequence) {
        public boolean clean() {
            return problem == null;
        }
    }

    /** Checks the 16-byte header; returns null when it is good, else what is wrong. */
    public static String checkHeader(Segment segment) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(RecordFormat.SEGMENT_HEADER_SIZE);
        int n = RecordReader.readFully(segment.channel(), h, 0);
        if (n < RecordFormat.SEGMENT_HEADER_SIZE) {
            return "header is " + n + " bytes, expected " + RecordFormat.SEGMENT_HEADER_SIZE;
        }
        if (h.getLong(0) != RecordFormat.MAGIC) {
            return "not a segment file (bad magic)";
        }
        if (h.getInt(8) != RecordFormat.VERSION) {
            return "unsupported format version " + h.getInt(8);
        }
        if (h.getInt(12) != segment.id()) {
            return "header says segment " + h.getInt(12) + " but the file name says " + segment.id();
        }
        return null;
    }

    /** Scans {@code segment} from {@code from} (at least the header size) to its end. */
    public static Result scan(Segment segment, long from, Visitor visitor) throws IOException {
        return scan(segment, from, 0, visitor);
    }

    /**
     * Scans {@code segment} from {@code from} to its end, where every record's sequence number must be above the one
     * before it, and the first above {@code after} when that is positive (the sequence number of the last record
     * before {@code from}).
     */
    public static Result scan(Segment segment, long from, long after, Visitor visitor) throws IOException {
        long fileSize = segment.channel().size();
        ChunkReader chunks = new ChunkReader(segment, fileSize - from);
        CRC32C crc = new CRC32C();
        ScannedRecord rec = new ScannedRecord(segment.id());
        long pos = Math.max(from, RecordFormat.SEGMENT_HEADER_SIZE);
        long lastSeq = Math.max(0, after);
        boolean any = after > 0;
        while (pos < fileSize) {
            if (fileSize - pos < RecordFormat.RECORD_HEADER_SIZE) {
                return new Result(pos, "truncated record header", lastSeq);
            }
            ByteBuffer head = chunks.window(pos, RecordFormat.RECORD_HEADER_SIZE);
            int bodyLength = head.getInt(0);
            byte type = head.get(8);
            int keyLength = Short.toUnsignedInt(head.getShort(10));
            int valueLength = head.getInt(12);
            long length = 8L + bodyLength;
            if (bodyLength < RecordFormat.BODY_FIXED_SIZE || valueLength < 0
                    || bodyLength != (long) RecordFormat.BODY_FIXED_SIZE + keyLength + valueLength
                    || (type != RecordFormat.TYPE_PUT && type != RecordFormat.TYPE_DELETE)) {
                return new Result(pos, "bad record header", lastSeq);
            }
            if (pos + length > fileSize) {
                return new Result(pos, "record extends past the end of the file", lastSeq);
            }
            ByteBuffer whole = chunks.window(pos, (int) length);
            if (RecordFormat.crc(crc, whole, 8, (int) length - 8) != whole.getInt(4)) {
                return new Result(pos, "CRC32C mismatch", lastSeq);
            }
            long seq = whole.getLong(16);
            if (any && seq <= lastSeq) { // an older record left in a reused file, after the last one written
                return new Result(pos, "sequence " + seq + " after " + lastSeq, lastSeq);
            }
            rec.set(whole, pos, (int) length, type, seq, keyLength, valueLength);
            visitor.visit(rec);
            lastSeq = seq;
            any = true;
            pos += length;
        }
        return new Result(pos, null, lastSeq);
    }

    /** One cached chunk of the file; records are sliced out of it without copying. */
    private static final class ChunkReader {
        private final Segment segment;
        private ByteBuffer chunk;
        private long chunkStart = -1;
        private int chunkLength;

        /** {@code remaining}: the bytes left to scan; a small segment does not get a whole chunk. */
        ChunkReader(Segment segment, long remaining) {
            this.segment = segment;
            this.chunk = ByteBuffer.allocateDirect((int) Math.max(RecordFormat.RECORD_HEADER_SIZE,
                    Math.min(CHUNK, remaining)));
        }

        /** {@code need} bytes from file offset {@code pos}, as a buffer indexed from 0. */
        ByteBuffer window(long pos, int need) throws IOException {
            if (chunkStart < 0 || pos < chunkStart || pos + need > chunkStart + chunkLength) {
                if (chunk.capacity() < need) {
                    chunk = ByteBuffer.allocateDirect(need);
                }
                chunk.clear();
                chunkLength = RecordReader.readFully(segment.channel(), chunk, pos);
                chunkStart = pos;
            }
            int at = (int) (pos - chunkStart);
            return chunk.duplicate().limit(at + need).position(at).slice();
        }
    }
}
