// Location -- where a key's newest record is: segment, offset, record length.
package io.elastikey.store.elastic.index;

/**
 * A mutable holder the index fills in, so a lookup allocates nothing: each reading thread keeps
 * one and reuses it.
 */
public final class Location {
    public int segmentId;
    public int offset;
    public int length;

    public Location set(int segmentId, int offset, int length) {
        this.segmentId = segmentId;
        this.offset = offset;
        this.length = length;
        return this;
    }

    public boolean sameAs(int segmentId, int offset) {
        return this.segmentId == segmentId && this.offset == offset;
    }

    @Override
    public String toString() {
        return "segment " + segmentId + " @" + offset + " (" + length + " bytes)";
    }
}
