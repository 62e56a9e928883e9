// Compactor -- rewrites the live records of mostly-garbage segments, then deletes those segments.
package io.elastikey.store.elastic;

import io.elastikey.store.elastic.index.Location;
import io.elastikey.store.elastic.log.Log;
import io.elastikey.store.elastic.log.LogScanner;
import io.elastikey.store.elastic.log.RecordFormat;
import io.elastikey.store.elastic.log.Segment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims disk space without blocking readers, crash-safe at every step:
 * <ol>
 *   <li>Pick a sealed segment whose garbage (bytes no index entry points to) is at least the
 *       configured ratio of its size.
 *   <li>Scan it. Each record the index still points to is appended again at the head of the log
 *       and the index moved to the copy, under the key's stripe lock and the write lock, exactly
 *       like a put of the same value: the log stays in write order, so replay and a full rebuild
 *       both end at the same state.
 *   <li>A tombstone is dropped when the segment is the oldest (no older put can remain to be
 *       resurrected) or its key was written again since; otherwise it is carried forward.
 *   <li>Checkpoint (the copies are now durable and the index no longer mentions the segment),
 *       then delete the file. Readers holding the old location finish through the open channel
 *       or look the key up again.
 * </ol>
 * A crash before the checkpoint replays the copies; a crash after it leaves a segment with no
 * live bytes, which the next pass deletes. A segment with a damaged record is left alone.
 */
final class Compactor {

    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

    private final ElasticStore store;

    Compactor(ElasticStore store) {
        this.store = store;
    }

    /** Compacts every eligible segment; returns how many were removed. */
    synchronized int compactEligible() {
        int removed = 0;
        double ratio = store.config().compactionGarbageRatio();
        for (Segment s : store.log.segments()) {
            if (store.isClosed()) {
                break; // close() waits for this pass; stop at a segment boundary
            }
            if (s == store.log.active() || s.size() <= RecordFormat.SEGMENT_HEADER_SIZE) {
                continue;
            }
            if ((double) s.garbageBytes() / s.size() >= ratio && compact(s)) {
                removed++;
            }
        }
        return removed;
    }

    private boolean compact(Segment seg) {
        boolean oldest = store.log.segments()[0] == seg;
        long[] moved = {0, 0};
        try {
            LogScanner.Result r = LogScanner.scan(seg, RecordFormat.SEGMENT_HEADER_SIZE, rec -> {
                byte[] key = rec.key();
                if (rec.isDelete()) {
                    if (!oldest && carryTombstone(key)) {
                        moved[1]++;
                    }
                } else if (moveIfCurrent(key, seg.id(), (int) rec.offset(), rec.value())) {
                    moved[0]++;
                }
            });
            if (!r.clean()) {
                LOG.error("{} is damaged at offset {} ({}); not compacting it", seg, r.validEnd(), r.problem());
                return false;
            }
            store.checkpoint(true);
            store.log.removeSegment(seg);
            LOG.info("compacted {}: {} live records and {} tombstones moved", seg, moved[0], moved[1]);
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("compaction of " + seg + " failed", e);
        }
    }

    /**
     * Re-appends the record of {@code key} if the index still points at
     * ({@code segmentId}, {@code offset}), and moves the index to the copy. The memory tier is not
     * touched: the value is the same.
     */
    private boolean moveIfCurrent(byte[] key, int segmentId, int offset, byte[] value) {
        ReentrantLock stripe = store.stripes.of(key);
        stripe.lock();
        store.writeLock.lock();
        try {
            Location loc = new Location();
            if (!store.index.lookup(key, loc) || !loc.sameAs(segmentId, offset)) {
                return false;
            }
            int oldLength = loc.length;
            Log.Appended a = store.log.append(RecordFormat.TYPE_PUT, key, value, value.length);
            store.index.put(key, a.segmentId(), a.offset(), a.length());
            store.addLive(a.segmentId(), a.length());
            store.addLive(segmentId, -oldLength);
            return true;
        } finally {
            store.writeLock.unlock();
            stripe.unlock();
        }
    }

    /** Re-appends a tombstone whose key is still deleted. It counts as live where it lands. */
    private boolean carryTombstone(byte[] key) {
        ReentrantLock stripe = store.stripes.of(key);
        stripe.lock();
        store.writeLock.lock();
        try {
            if (store.index.contains(key)) {
                return false;
            }
            Log.Appended a = store.log.append(RecordFormat.TYPE_DELETE, key, null, 0);
            store.addLive(a.segmentId(), a.length());
            return true;
        } finally {
            store.writeLock.unlock();
            stripe.unlock();
        }
    }
}
