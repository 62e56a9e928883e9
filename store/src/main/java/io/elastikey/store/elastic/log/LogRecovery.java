// LogRecovery -- the part of opening a store that reads the log: segment headers, replay, torn-tail truncation.
package io.elastikey.store.elastic.log;

import io.elastikey.store.StoreException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What recovery does with the segment files themselves, apart from the index it fills: the store's
 * {@code Recovery} calls these two steps with its Chronicle Map index, and the {@code store-log} fuzz target
 * calls the same code with a plain map, so that a million corrupt segments cost file reads rather than a
 * million index files (docs/security.md).
 * <ol>
 *   <li>{@link #dropHalfCreatedSegment}: every segment's header is checked. A newest segment too short to hold
 *       one was being created when the process died: it is removed. Any other bad header is damage the store
 *       will not open over ({@link StoreException}).
 *   <li>{@link #replay}: records after a starting point are applied to the index in log order. The first invalid
 *       record of the newest segment is a torn write: the segment is truncated there. An invalid record in an
 *       older segment is damage: it is logged and the rest of that segment skipped.
 * </ol>
 */
public final class LogRecovery {

    /** The lines keep the logger they were written under before this step left {@code Recovery}. */
    private static final Logger LOG = LoggerFactory.getLogger("io.elastikey.store.elastic.Recovery");

    private LogRecovery() {
    }

    /** Where the replay gets its records' locations to. Keys are fresh arrays the index may keep. */
    public interface Index {
        void put(byte[] key, int segmentId, int offset, int length);

        void remove(byte[] key);
    }

    /**
     * Where a replay starts: {@code offset} of segment {@code segmentId} (earlier segments are skipped), whose records
     * all have sequence numbers above {@code sequence}, the last one before it. A record there with a number not
     * above it is an old one in a reused file, past the end of what was written there (see {@code Log}).
     */
    public record Start(int segmentId, long offset, long sequence) {
    }

    /** Step 1: checks every segment's header, removing a newest segment that was created but never written. */
    public static void dropHalfCreatedSegment(Log log) throws IOException {
        Segment[] segs = log.segments();
        for (int i = 0; i < segs.length; i++) {
            String problem = LogScanner.checkHeader(segs[i]);
            if (problem == null) {
                continue;
            }
            boolean newest = i == segs.length - 1;
            if (newest && segs[i].size() <= RecordFormat.SEGMENT_HEADER_SIZE) {
                LOG.warn("removing {}: created but never written ({})", segs[i], problem);
                log.removeSegment(segs[i]);
            } else {
                throw new StoreException(segs[i] + " in " + log.directory() + " is damaged: " + problem);
            }
        }
    }

    /**
     * Step 2: applies the log from {@code from} (the whole log when null) to {@code index}, truncating a torn tail
     * of the newest segment.
     *
     * @return the largest of the segments' last valid sequence numbers, 0 when none
     */
    public static long replay(Log log, Index index, Start from) throws IOException {
        Segment[] segs = log.segments();
        long lastSeq = 0;
        long applied = 0;
        for (int i = 0; i < segs.length; i++) {
            Segment seg = segs[i];
            if (from != null && seg.id() < from.segmentId()) {
                continue;
            }
            boolean atStart = from != null && seg.id() == from.segmentId();
            long start = atStart ? from.offset() : RecordFormat.SEGMENT_HEADER_SIZE;
            long[] count = {0};
            LogScanner.Result r = LogScanner.scan(seg, start, atStart ? from.sequence() : 0, rec -> {
                if (rec.isDelete()) {
                    index.remove(rec.key());
                } else {
                    index.put(rec.key(), rec.segmentId(), (int) rec.offset(), rec.length());
                }
                count[0]++;
            });
            applied += count[0];
            lastSeq = Math.max(lastSeq, r.lastSequence());
            if (!r.clean()) {
                if (i == segs.length - 1) {
                    LOG.warn("{}: its records end at offset {} ({}); cutting the {} bytes after them (a write the "
                            + "crash tore, or the older contents of a reused file)", seg, r.validEnd(), r.problem(),
                            seg.size() - r.validEnd());
                    log.truncate(seg, r.validEnd());
                } else {
                    LOG.error("{}: damaged at offset {} ({}); records after it in this segment are skipped", seg,
                            r.validEnd(), r.problem());
                }
            }
        }
        if (applied > 0) {
            LOG.info("replayed {} log records into the index", applied);
        }
        return lastSeq;
    }
}
