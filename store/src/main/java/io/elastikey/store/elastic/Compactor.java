// Compactor -- rewrites the live records of mostly-garbage segments, then deletes those segments.
package io.elastikey.store.elastic;

import io.elastikey.store.elastic.index.Location;
import io.elastikey.store.elastic.log.Log;
import io.elastikey.store.elastic.log.LogScanner;
import io.elastikey.store.elastic.log.RecordFormat;
import io.elastikey.store.elastic.log.Segment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims disk space without blocking readers, crash-safe at every step:
 * <ol>
 *   <li>Pick a sealed segment whose garbage (bytes no index entry points to) is at least the
 *       configured ratio of its size.
 *   <li>Scan it. Each record the index still points to is appended again at the head of the log
 *       and the index moved to the copy, under the key's stripe lock and the write lock, in batches
 *       exactly like a {@code putAll} of the same values: the log stays in write order, so replay and a full rebuild
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
        Moves moves = new Moves(seg.id());
        try {
            LogScanner.Result r = LogScanner.scan(seg, RecordFormat.SEGMENT_HEADER_SIZE, rec -> {
                byte[] key = rec.key();
                if (rec.isDelete()) {
                    if (!oldest && carryTombstone(key)) {
                        moved[1]++;
                    }
                } else if (moves.add(key, (int) rec.offset(), rec.value())) {
                    moved[0] += moves.moveIfCurrent();
                }
            });
            moved[0] += moves.moveIfCurrent();
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
     * Live-looking records of one segment gathered to be moved together: one append of up to
     * {@link ElasticStore#BATCH} records ({@link Log#appendPuts}) instead of a write each, under their stripe locks
     * and one turn of the write lock, as {@link ElasticStore#putAll} writes.
     */
    private final class Moves {
        private final int segmentId;
        private final List<Map.Entry<byte[], byte[]>> records = new ArrayList<>();
        private final int[] offsets = new int[ElasticStore.BATCH];

        Moves(int segmentId) {
            this.segmentId = segmentId;
        }

        /** Gathers a record read at {@code offset}; returns whether the batch is full. */
        boolean add(byte[] key, int offset, byte[] value) {
            offsets[records.size()] = offset;
            records.add(Map.entry(key, value));
            return records.size() == ElasticStore.BATCH;
        }

        /**
         * Re-appends each gathered record the index still points at, and moves the index to the copy; returns how
         * many. The memory tier is not touched: the values are the same.
         */
        int moveIfCurrent() {
            if (records.isEmpty()) {
                return 0;
            }
            int[] locked = store.stripes.lockAll(records, 0, records.size());
            try {
                store.writeLock.lock();
                try {
                    List<Map.Entry<byte[], byte[]>> current = new ArrayList<>(records.size());
                    Location loc = new Location();
                    for (int i = 0; i < records.size(); i++) {
                        byte[] key = records.get(i).getKey();
                        if (store.index.lookup(key, loc) && loc.sameAs(segmentId, offsets[i])) {
                            current.add(records.get(i));
                        }
                    }
                    Log.Appended[] at = new Log.Appended[current.size()];
                    try {
                        store.log.appendPuts(current, 0, current.size(), at);
                    } finally {
                        for (int i = 0; i < at.length && at[i] != null; i++) {
                            store.pointIndexAt(current.get(i).getKey(), at[i]);
                        }
                    }
                    return current.size();
                } finally {
                    store.writeLock.unlock();
                }
            } finally {
                store.stripes.unlockAll(locked);
                records.clear();
            }
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
