// Recovery -- brings the index back in line with the log when a store opens.
package io.elastikey.store.elastic;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.index.Checkpoint;
import io.elastikey.store.elastic.index.PersistedIndex;
import io.elastikey.store.elastic.log.DirectorySync;
import io.elastikey.store.elastic.log.Log;
import io.elastikey.store.elastic.log.LogRecovery;
import io.elastikey.store.elastic.log.Segment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens between opening the files and serving (steps 1 and 3 read the log: {@link LogRecovery}):
 * <ol>
 *   <li>Check every segment's header. A newest segment too short to hold one was being created
 *       when the process died: it is removed.
 *   <li>Open the index. After a clean close it is trusted as is; after a crash Chronicle's
 *       recovery runs over it first. Without a checkpoint, or when the index cannot be opened,
 *       it is rebuilt from the whole log.
 *   <li>Replay the log after the checkpoint into the index, in order. The first invalid record of
 *       the newest segment is a torn write: the segment is truncated there. An invalid record in
 *       an older segment is damage: it is logged and the rest of that segment skipped.
 *   <li>Count each segment's live bytes from the index (the compactor's input), unless a clean close
 *       left them and nothing happened since ({@link LiveBytesFile}); write a fresh checkpoint marked
 *       unclean, and make the log appendable.
 * </ol>
 */
final class Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
    /** Smaller than any index Chronicle writes (its header alone is larger). */
    private static final long MIN_INDEX_FILE_SIZE = 4096;
    /** Present while Chronicle's recovery of the index runs; see {@link #openTrusted}. */
    static final String RECOVERING_MARKER = "index.recovering";

    record Result(Log log, PersistedIndex index, long checkpointedSequence) {
    }

    private Recovery() {
    }

    static Result run(ElasticStoreConfig config) throws IOException {
        Path dir = config.directory();
        Log log = Log.open(dir, config.segmentSizeBytes(), config.fsyncPolicy(), config.groupCommitIntervalMillis(),
                config.directReads());
        PersistedIndex index = null;
        try {
            LogRecovery.dropHalfCreatedSegment(log);
            Checkpoint cp = readCheckpoint(dir);
            index = indexUsable(config, log, cp) ? openTrusted(config, cp) : null;
            Checkpoint replayFrom = cp;
            if (index == null) {
                index = rebuildIndex(config);
                replayFrom = null;
            }
            long replayed = replay(log, index, replayFrom);
            long lastSeq = cp == null ? replayed : Math.max(replayed, cp.sequence());
            boolean untouchedSinceCleanClose = replayFrom != null && cp.clean() && replayed <= cp.sequence();
            if (!(untouchedSinceCleanClose && LiveBytesFile.apply(dir, cp.sequence(), log))) {
                LiveBytesFile.delete(dir);
                countLiveBytes(log, index);
            }
            log.startAppending(lastSeq);
            Log.Position end = log.endPosition();
            index.flush();
            new Checkpoint(end.segmentId(), end.offset(), end.sequence(), false).write(dir);
            Files.deleteIfExists(dir.resolve(RECOVERING_MARKER));
            return new Result(log, index, end.sequence());
        } catch (IOException | RuntimeException e) {
            if (index != null) {
                index.close();
            }
            log.close();
            throw e;
        }
    }

    /** The checkpoint, or null when missing or damaged: either way the index is rebuilt. */
    private static Checkpoint readCheckpoint(Path dir) {
        try {
            return Checkpoint.read(dir);
        } catch (IOException | StoreException e) {
            LOG.warn("checkpoint in {} is unreadable ({}); the index will be rebuilt from the log", dir, e.getMessage());
            return null;
        }
    }

    private static Path indexFile(ElasticStoreConfig config) {
        return config.directory().resolve(ElasticStore.INDEX_FILE);
    }

    private static boolean indexUsable(ElasticStoreConfig config, Log log, Checkpoint cp) throws IOException {
        Path file = indexFile(config);
        // Chronicle treats an empty file as a new map: an emptied index must not pass for one.
        boolean usable = cp != null && Files.exists(file) && Files.size(file) >= MIN_INDEX_FILE_SIZE
                && (log.segments().length == 0 || log.segment(cp.segmentId()) != null);
        if (!usable && log.segments().length > 0) {
            LOG.warn("no usable checkpoint or index in {}; rebuilding the index from the log", config.directory());
        }
        return usable;
    }

    /**
     * The index as the checkpoint left it, or null when it cannot be opened. Chronicle's recovery
     * marks the file's header incomplete while it works; killed in between, the next recovery
     * would wait a minute for a writer that does not exist. So a marker file brackets the
     * recovery, and finding it means: skip Chronicle's recovery and rebuild from the log.
     */
    private static PersistedIndex openTrusted(ElasticStoreConfig config, Checkpoint cp) throws IOException {
        Path marker = config.directory().resolve(RECOVERING_MARKER);
        if (Files.exists(marker)) {
            LOG.warn("an earlier recovery of {} did not finish; rebuilding the index from the log", indexFile(config));
            return null;
        }
        if (!cp.clean()) {
            Files.createFile(marker);
            DirectorySync.sync(config.directory());
        }
        try {
            return PersistedIndex.open(indexFile(config), config.indexCapacity(), config.averageKeySize(), !cp.clean());
        } catch (IOException | RuntimeException e) {
            LOG.warn("index {} cannot be opened ({}); rebuilding it from the log", indexFile(config), e.toString());
            return null;
        }
    }

    /**
     * A fresh index, to be filled from the whole log. The checkpoint goes first: should this
     * process die mid-rebuild, the next open must not trust a half-built index.
     */
    private static PersistedIndex rebuildIndex(ElasticStoreConfig config) throws IOException {
        Files.deleteIfExists(config.directory().resolve(Checkpoint.FILE_NAME));
        DirectorySync.sync(config.directory());
        Files.deleteIfExists(indexFile(config));
        return PersistedIndex.open(indexFile(config), config.indexCapacity(), config.averageKeySize(), false);
    }

    /** Applies the log after {@code from} (everything when null); returns the last sequence seen. */
    private static long replay(Log log, PersistedIndex index, Checkpoint from) throws IOException {
        return LogRecovery.replay(log, index,
                from == null ? null : new LogRecovery.Start(from.segmentId(), from.offset(), from.sequence()));
    }

    private static void countLiveBytes(Log log, PersistedIndex index) {
        index.forEach((key, loc) -> {
            Segment s = log.segment(loc.segmentId);
            if (s != null) {
                s.addLive(loc.length);
            }
        });
    }
}
