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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reclaims disk space without blocking readers, crash-safe at every step:
 * <ol>
 *   <li>Pick a sealed segment whose garbage (bytes no index entry points to) is at least the
 *       configured ratio of its size.
 *   <li>Scan it. Each record the index still points to (looked up first without a lock, then again under the key's
 *       stripe lock) is appended again
 *       at the head of the log and the index moved to the copy, under the stripe lock and the write lock, in batches
 *       exactly like a {@code putAll} of the same values: the log stays in write order, so replay and a full rebuild
 *       both end at the same state.
 *   <li>A tombstone is dropped when the segment is the oldest (no older put can remain to be
 *       resurrected) or its key was written again since; otherwise it is carried forward.
 *   <li>Once a checkpoint has covered the copies (they are durable and the index no longer mentions the segment),
 *       delete the file. Readers holding the old location finish through the open channel or look the key up
 *       again.
 * </ol>
 * A crash before that checkpoint replays the copies; a crash after it leaves a segment with no
 * live bytes, which the next pass deletes. A segment with a damaged record is left alone.
 *
 * <h2>Why the deletion waits for the store's own checkpoint</h2>
 * A checkpoint writes the index's dirty pages to disk, and the kernel then write-protects every page it wrote: the
 * next update of each one takes a page fault ({@code ext4_page_mkwrite}). A checkpoint per compacted segment,
 * several a second under a stream of overwrites, made nearly every index update of the writers a fault (0.8 per
 * SET at a million keys, docs/benchmarks.md). So a background pass only moves the records and leaves the
 * segment {@linkplain #moved() moved}; the periodic checkpoint deletes what was moved before it began. At most
 * {@value #MAX_MOVED} segments wait, so the disk a pass has freed in effect is never far behind; a pass asked for
 * ({@code compactNow}) or a store without periodic checkpoints checkpoints and deletes at once.
 */
final class Compactor {

    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

    /** Moved segments left for a checkpoint to delete; past this many, the pass checkpoints itself. */
    static final int MAX_MOVED = 8;

    private final ElasticStore store;
    /**
     * Segments whose live records are all copied, oldest first, waiting for a checkpoint. Its own thread-safe list,
     * not guarded by this: a checkpoint reads and trims it while a pass holds this monitor and waits for that same
     * checkpoint's lock.
     */
    private final List<Segment> moved = new CopyOnWriteArrayList<>();

    Compactor(ElasticStore store) {
        this.store = store;
    }

    /**
     * Compacts every eligible segment; returns how many were removed. With {@code deferRemoval} the compacted
     * segments are left for the next periodic checkpoint to delete (see the class comment), unless
     * {@value #MAX_MOVED} are waiting; without, the pass ends with one checkpoint and deletes them.
     */
    int compactEligible(boolean deferRemoval) {
        return compactEligible(store.log.segments(), deferRemoval);
    }

    /** {@link #compactEligible(boolean)} over a listing of the log, which a checkpoint may have changed since. */
    synchronized int compactEligible(Segment[] listing, boolean deferRemoval) {
        int removed = 0;
        double ratio = store.config().compactionGarbageRatio();
        try {
            for (Segment s : listing) {
                if (store.isClosed()) {
                    break; // close() waits for this pass; stop at a segment boundary
                }
                if (s == store.log.active() || s.size() <= RecordFormat.SEGMENT_HEADER_SIZE || alreadyMoved(s)) {
                    continue;
                }
                if ((double) s.garbageBytes() / s.size() >= ratio && compact(s)) {
                    moved.add(s);
                    if (moved.size() >= MAX_MOVED) {
                        removed += checkpointAndRemove();
                    }
                }
            }
        } finally {
            if (!deferRemoval && !store.isClosed()) {
                removed += checkpointAndRemove();
            }
        }
        return removed;
    }

    /**
     * Whether {@code s} was compacted already: it waits in {@link #moved} or a checkpoint has removed it since this
     * pass listed the log. In that order, because {@link #remove} takes a segment out of the log before out of the
     * list: a pass never finds one in neither and scans a closed file.
     */
    private boolean alreadyMoved(Segment s) {
        return moved.contains(s) || s.isRetired();
    }

    /** The segments moved so far and not yet deleted: what a checkpoint started now will cover. */
    List<Segment> moved() {
        return List.copyOf(moved);
    }

    /**
     * Deletes {@code covered} (from {@link #moved()}), which a checkpoint finished after that call has made safe to
     * delete; returns how many.
     */
    int remove(List<Segment> covered) throws IOException {
        int removed = 0;
        for (Segment s : covered) { // checkpoints take turns, so nothing else removes from the list meanwhile
            if (moved.contains(s)) {
                store.log.removeSegment(s); // retires it first: see alreadyMoved
                moved.remove(s);
                removed++;
            }
        }
        return removed;
    }

    private int checkpointAndRemove() {
        if (moved.isEmpty()) {
            return 0;
        }
        try {
            return store.checkpoint(true); // deletes what was moved before it
        } catch (IOException e) {
            throw new UncheckedIOException("checkpoint after compaction failed", e);
        }
    }

    private boolean compact(Segment seg) {
        boolean oldest = store.log.segments()[0] == seg;
        long[] copied = {0, 0};
        Moves moves = new Moves(seg.id());
        Location here = new Location();
        try {
            LogScanner.Result r = LogScanner.scan(seg, RecordFormat.SEGMENT_HEADER_SIZE, rec -> {
                byte[] key = rec.key();
                if (rec.isDelete()) {
                    if (!oldest && carryTombstone(key)) {
                        copied[1]++;
                    }
                } else if (store.index.lookup(key, here) && here.sameAs(seg.id(), (int) rec.offset())
                        && moves.add(key, (int) rec.offset(), rec.value())) {
                    copied[0] += moves.moveIfCurrent();
                }
            });
            copied[0] += moves.moveIfCurrent();
            if (!r.clean()) {
                LOG.error("{} is damaged at offset {} ({}); not compacting it", seg, r.validEnd(), r.problem());
                return false;
            }
            LOG.info("compacted {}: {} live records and {} tombstones moved", seg, copied[0], copied[1]);
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

        /**
         * Gathers a record read at {@code offset} that the index pointed at a moment ago (looked up without its
         * stripe lock, a filter only: a record the index has left is dead for good, since a sealed segment's
         * offsets never come back into use, so most of a mostly-garbage segment costs neither a copy of its value
         * nor a stripe lock); returns whether the batch is full.
         */
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
            long[] hashes = ElasticStore.hashes(records, 0, records.size());
            int[] locked = store.stripes.lockAll(hashes, records.size());
            try {
                // The stripes keep every writer of these keys out, so their index entries hold still: the lookups
                // need no write lock, which the event loop's SETs wait for.
                List<Map.Entry<byte[], byte[]>> current = new ArrayList<>(records.size());
                long[] currentHashes = new long[records.size()];
                Location loc = new Location();
                for (int i = 0; i < records.size(); i++) {
                    byte[] key = records.get(i).getKey();
                    if (store.index.lookup(key, loc) && loc.sameAs(segmentId, offsets[i])) {
                        currentHashes[current.size()] = hashes[i];
                        current.add(records.get(i));
                    }
                }
                store.writeLock.lock();
                try {
                    Log.Appended[] at = new Log.Appended[current.size()];
                    try {
                        store.log.appendPuts(current, 0, current.size(), at);
                    } finally {
                        for (int i = 0; i < at.length && at[i] != null; i++) {
                            store.pointIndexAt(current.get(i).getKey(), currentHashes[i], at[i]);
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
