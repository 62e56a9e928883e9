// ScannedRecord -- a view of the record a LogScanner is visiting.
package io.elastikey.store.elastic.log;

import java.nio.ByteBuffer;

/**
 * The record under the scanner. Reused between visits: copy what you keep. {@link #key()} and
 * {@link #value()} return fresh arrays.
 */
public final class ScannedRecord {

    private final int segmentId;
    private ByteBuffer buf;
    private long offset;
    private int length;
    private byte type;
    private long sequence;
    private int keyLength;
    private int valueLength;

    ScannedRecord(int segmentId) {
        this.segmentId = segmentId;
    }

    void set(ByteBuffer buf, long offset, int length, byte type, long sequence, int keyLength, int valueLength) {
        this.buf = buf;
        this.offset = offset;
        this.length = length;
        this.type = type;
        this.sequence = sequence;
        this.keyLength = keyLength;
        this.valueLength = valueLength;
    }

    public int segmentId() { return segmentId; }
    public long offset() { return offset; }
    public int length() { return length; }
    public boolean isDelete() { return type == RecordFormat.TYPE_DELETE; }
    public long sequence() { return sequence; }
    public int valueLength() { return valueLength; }

    public byte[] key() {
        byte[] k = new byte[keyLength];
        buf.get(RecordFormat.RECORD_HEADER_SIZE, k);
        return k;
    }

    public byte[] value() {
        byte[] v = new byte[valueLength];
        buf.get(RecordFormat.RECORD_HEADER_SIZE + keyLength, v);
        return v;
    }
}
