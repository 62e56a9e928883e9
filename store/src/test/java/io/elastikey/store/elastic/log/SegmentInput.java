// SegmentInput -- a store-log fuzz input made into segment files, and what the documented layout says they hold.
package io.elastikey.store.elastic.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * One input of the {@code store-log} target ({@link SegmentLogFuzzTest}) and of its replay through a whole store
 * ({@link SegmentLogStoreOpenTest}). CRC32C would stop a mutation-based fuzzer at the first record, so the first
 * byte chooses what is done with the rest: bit 0 writes a valid segment header in front (else the bytes are the
 * whole file), bit 1 recomputes the CRC of every record whose lengths fit (so the fuzzer explores what is inside
 * records), bit 2 makes the file an older segment followed by an empty newest one (damage there is skipped, not
 * truncated).
 *
 * <p>{@link Model} reads the file by the record layout of docs/store.md, without the store's code.
 */
final class SegmentInput {
    /** The segment file of fuzzed bytes: segment 1. */
    final byte[] file;
    /** Whether an empty segment 2 follows it, making it an older segment. */
    final boolean older;
    final Model model;

    private SegmentInput(byte[] file, boolean older) {
        this.file = file;
        this.older = older;
        this.model = Model.of(file);
    }

    /** {@code input} must not be empty. */
    static SegmentInput of(byte[] input) {
        int mode = input[0];
        byte[] rest = Arrays.copyOfRange(input, 1, input.length);
        byte[] file = (mode & 1) != 0 ? withHeader(rest, 1) : rest;
        if ((mode & 2) != 0) {
            fixCrcs(file);
        }
        return new SegmentInput(file, (mode & 4) != 0);
    }

    Path first(Path dir) {
        return dir.resolve(RecordFormat.segmentFileName(1));
    }

    void writeTo(Path dir) throws IOException {
        Files.write(first(dir), file);
        if (older) {
            Files.write(dir.resolve(RecordFormat.segmentFileName(2)), withHeader(new byte[0], 2));
        }
    }

    /** Whether the store may open over these files: a good header, or a newest segment too short for one. */
    boolean opens() {
        return model.headerGood || file.length <= RecordFormat.SEGMENT_HEADER_SIZE && !older;
    }

    /** The size segment 1 must have after recovery, when its header is good: a newest one is cut to its valid part. */
    long sizeAfterRecovery() {
        return older ? file.length : model.validEnd;
    }

    private static byte[] withHeader(byte[] records, int segmentId) {
        ByteBuffer file = ByteBuffer.allocate(RecordFormat.SEGMENT_HEADER_SIZE + records.length);
        RecordFormat.encodeSegmentHeader(file, segmentId);
        file.put(records);
        return file.array();
    }

    /** Rewrites the CRC of each record whose body fits in the file, front to back. */
    private static void fixCrcs(byte[] file) {
        ByteBuffer buf = ByteBuffer.wrap(file);
        CRC32C crc = new CRC32C();
        int pos = RecordFormat.SEGMENT_HEADER_SIZE;
        while (pos + RecordFormat.RECORD_HEADER_SIZE <= file.length) {
            int bodyLength = buf.getInt(pos);
            if (bodyLength < RecordFormat.BODY_FIXED_SIZE || bodyLength > file.length - pos - 8) {
                return;
            }
            buf.putInt(pos + 4, RecordFormat.crc(crc, buf, pos + 8, bodyLength));
            pos += 8 + bodyLength;
        }
    }

    /** What the documented layout (docs/store.md) says a segment holds, read without the store's code. */
    static final class Model {
        boolean headerGood;
        long validEnd;
        /** The sequence number of the last valid record, 0 when none. */
        long lastSequence;
        /** Keys (hex) to their value after last-write-wins. */
        final Map<String, byte[]> live = new HashMap<>();
        final Set<String> deleted = new HashSet<>();

        static Model of(byte[] file) {
            Model m = new Model();
            ByteBuffer buf = ByteBuffer.wrap(file);
            m.headerGood = file.length >= 16 && buf.getLong(0) == RecordFormat.MAGIC
                    && buf.getInt(8) == RecordFormat.VERSION && buf.getInt(12) == 1;
            if (!m.headerGood) {
                return m;
            }
            CRC32C crc = new CRC32C();
            int pos = 16;
            boolean any = false;
            while (pos + 24 <= file.length) {
                int bodyLength = buf.getInt(pos);
                byte type = buf.get(pos + 8);
                int keyLength = Short.toUnsignedInt(buf.getShort(pos + 10));
                int valueLength = buf.getInt(pos + 12);
                if (bodyLength < 16 || valueLength < 0 || bodyLength != 16L + keyLength + valueLength
                        || type != 1 && type != 2 || 8L + bodyLength > file.length - pos) {
                    break;
                }
                crc.reset();
                crc.update(file, pos + 8, bodyLength);
                if ((int) crc.getValue() != buf.getInt(pos + 4)) {
                    break;
                }
                long sequence = buf.getLong(pos + 16);
                if (any && sequence <= m.lastSequence) { // sequence numbers rise: this is an older record, not a write
                    break;
                }
                String key = HexFormat.of().formatHex(file, pos + 24, pos + 24 + keyLength);
                if (type == 1) {
                    m.live.put(key, Arrays.copyOfRange(file, pos + 24 + keyLength, pos + 24 + keyLength + valueLength));
                    m.deleted.remove(key);
                } else {
                    m.live.remove(key);
                    m.deleted.add(key);
                }
                m.lastSequence = sequence;
                any = true;
                pos += 8 + bodyLength;
            }
            m.validEnd = pos;
            return m;
        }
    }
}
