// Segment -- one log file: its channel, its append position and how many of its bytes are live.
package io.elastikey.store.elastic.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An open segment file. Readers {@link #acquire()} it around each positional read; the compactor
 * {@link #retire()}s it once nothing in the index points into it, and the channel closes when the
 * last reader releases. The file itself is deleted by whoever retires it: an unlinked file stays
 * readable through the open channel, so a reader racing with compaction never sees a closed file.
 */
public final class Segment {

    private final int id;
    private final Path path;
    private final FileChannel channel;
    /** The same file opened {@code O_DIRECT} for reading records, or null to read through the page cache. */
    private final FileChannel directChannel;
    /** What {@link #directChannel} reads must be aligned to. */
    private final int directAlignment;
    /** Bytes of valid records plus the header; the append position while the segment is active. */
    private volatile long size;
    /** Bytes of records the index still points to. The rest is garbage for the compactor. */
    private final AtomicLong liveBytes = new AtomicLong();
    /** 1 for the log's own reference plus one per reader; 0 means closed. */
    private final AtomicInteger refs = new AtomicInteger(1);
    private final AtomicInteger retired = new AtomicInteger();

    Segment(int id, Path path, FileChannel channel, FileChannel directChannel, int directAlignment, long size) {
        this.id = id;
        this.path = path;
        this.channel = channel;
        this.directChannel = directChannel;
        this.directAlignment = directAlignment;
        this.size = size;
    }

    public int id() {
        return id;
    }

    public Path path() {
        return path;
    }

    FileChannel channel() {
        return channel;
    }

    FileChannel directChannel() {
        return directChannel;
    }

    int directAlignment() {
        return directAlignment;
    }

    public long size() {
        return size;
    }

    void size(long newSize) {
        size = newSize;
    }

    public long liveBytes() {
        return liveBytes.get();
    }

    public void addLive(long delta) {
        liveBytes.addAndGet(delta);
    }

    /** Bytes no record in the index points to: overwritten values, tombstones, the header. */
    public long garbageBytes() {
        return Math.max(0, size - liveBytes.get());
    }

    /** Takes a reader's reference; false when the segment is already closed. */
    public boolean acquire() {
        for (;;) {
            int r = refs.get();
            if (r == 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    public void release() {
        if (refs.decrementAndGet() == 0) {
            closeQuietly();
        }
    }

    /** Drops the log's own reference, once. The channel closes when the last reader is done. */
    public void retire() {
        if (retired.compareAndSet(0, 1)) {
            release();
        }
    }

    public boolean isRetired() {
        return retired.get() != 0;
    }

    /** Whether the channel is closed: retired, and no reader holds it any more. */
    boolean isClosed() {
        return refs.get() == 0;
    }

    private void closeQuietly() {
        try {
            channel.close();
            if (directChannel != null) {
                directChannel.close();
            }
        } catch (IOException ignored) {
            // Nothing to recover: the segment is gone from the log already.
        }
    }

    @Override
    public String toString() {
        return "segment " + id + " (" + path.getFileName() + ")";
    }
}
