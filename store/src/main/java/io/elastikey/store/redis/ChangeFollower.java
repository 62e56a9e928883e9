// ChangeFollower -- reads a RedisStore's change log (a Redis stream) on from the last notice it handed on.
package io.elastikey.store.redis;

import io.elastikey.store.KeyValueStore.ChangeListener;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link RedisStore#follow}: a loop of {@code XREAD BLOCK} on a connection of its own, each read starting after
 * the last entry it saw, so that a connection lost and found again (a Redis restart, a failover, a network blip)
 * costs a replay of the notices written meanwhile rather than everything the listener kept. What it cannot replay
 * it reports: after a failed command it first checks that its last entry is still in the stream, and when that entry
 * is gone (trimmed while it was away, or lost with a Redis that kept no data) the listener hears
 * {@link ChangeListener#missedSome}. It checks the same after every read (one returns at least once a second): a
 * {@code FLUSHALL}, a {@code DEL} of the log or a Redis restarted empty between two reads fails no command, and without
 * the check the listener would go on serving what it kept of entries that are gone.
 *
 * <p>Threads: each step runs on Lettuce's threads when the previous one completes, so at most one command of the
 * loop is ever outstanding and {@link #lastId} needs no lock (only {@code volatile}: the steps run on several
 * threads); a failed step is tried again after {@value #RETRY_MILLIS} ms.
 */
final class ChangeFollower implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ChangeFollower.class);
    static final long RETRY_MILLIS = 100;
    private static final int ENTRIES_PER_READ = 100;

    private final RedisConnections connections;
    private final StatefulConnection<byte[], byte[]> connection;
    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final ChangeLog changeLog;
    private final ChangeListener listener;
    private final long blockMillis;
    private volatile boolean closed;
    private volatile String lastId;

    private ChangeFollower(RedisConnections connections, ChangeLog changeLog, ChangeListener listener,
                           Duration commandTimeout) {
        this.connections = connections;
        this.connection = connections.openOwn();
        this.commands = RedisConnections.async(connection);
        this.changeLog = changeLog;
        this.listener = listener;
        // Under the command timeout, which Lettuce applies to a blocking read too.
        this.blockMillis = Math.max(1, Math.min(1000, commandTimeout.toMillis() / 2));
    }

    /**
     * Starts following after the newest entry of the log (writing a first one when it has none), and returns once
     * that position is known.
     *
     * @throws RedisException when Redis does not answer within {@code commandTimeout}
     */
    static ChangeFollower start(RedisConnections connections, ChangeLog changeLog, ChangeListener listener,
                                Duration commandTimeout) {
        ChangeFollower follower = new ChangeFollower(connections, changeLog, listener, commandTimeout);
        try {
            follower.lastId = RedisConnections.await(follower.newestId().toCompletableFuture(),
                    commandTimeout.toNanos());
        } catch (RuntimeException e) {
            follower.close();
            throw e;
        }
        follower.read();
        return follower;
    }

    /** The ID of the log's newest entry; a start marker's, written now, when the log is empty or gone. */
    private CompletionStage<String> newestId() {
        return commands.xrevrange(changeLog.key(), Range.create("-", "+"), Limit.create(0, 1))
                .thenCompose(newest -> newest.isEmpty()
                        ? commands.xadd(changeLog.key(), changeLog.trimming(), ChangeLog.startMarker())
                        : CompletableFuture.completedFuture(newest.get(0).getId()));
    }

    private void read() {
        if (closed) {
            return;
        }
        String from = lastId;
        commands.xread(XReadArgs.Builder.block(blockMillis).count(ENTRIES_PER_READ),
                XReadArgs.StreamOffset.from(changeLog.key(), from)).whenComplete((entries, failure) -> {
                    if (failure != null) {
                        retryLater();
                        return;
                    }
                    if (entries != null) { // null: the read blocked its time and nothing came
                        entries.forEach(this::handOn);
                    }
                    resume(from); // a FLUSHALL or a DEL of the log fails no command: is `from` still there?
                });
    }

    /** Hands an entry's notice to the listener; a listener that throws is logged, and the loop goes on. */
    private void handOn(StreamMessage<byte[], byte[]> entry) {
        lastId = entry.getId();
        byte[] notice = ChangeLog.noticeOf(entry);
        if (notice == null || closed) {
            return;
        }
        try {
            listener.announced(notice);
        } catch (RuntimeException e) {
            log.warn("a listener of the change log {} failed on entry {}", changeLog, entry.getId(), e);
        }
    }

    private void retryLater() {
        if (closed) {
            return;
        }
        try {
            connections.schedule(() -> resume(lastId), RETRY_MILLIS);
        } catch (RejectedExecutionException e) {
            closed = true; // the store closed its connections before this follower was closed: nothing to follow
        }
    }

    /**
     * After each read, and after a failed step: reads on from {@link #lastId} when the log still holds {@code mark}
     * (the entry the read started after, or {@link #lastId} itself). When it does not, the listener is told it missed
     * some notices, and the loop goes on after what is the newest entry at that moment, taken before the listener
     * hears it: a change announced after that entry is still read, and one announced before it happened before the
     * listener forgot everything. Checking the read's own starting point, not its last entry, also catches a log
     * emptied and written again between two reads: what was read came from a new stream, and what it replaced is
     * gone.
     */
    private void resume(String mark) {
        if (closed) {
            return;
        }
        commands.xrange(changeLog.key(), Range.create(mark, mark)).thenCompose(found -> {
            if (!found.isEmpty()) {
                return CompletableFuture.completedFuture(lastId);
            }
            return newestId().thenApply(newest -> {
                // DEBUG: the listener says what it does about it, in the one WARN line an operator needs.
                log.debug("the change log {} no longer holds entry {}: notices may have been lost (a connection "
                        + "down, a Redis restarted empty, a FLUSHALL)", changeLog, mark);
                listener.missedSome();
                return newest;
            });
        }).whenComplete((from, failure) -> {
            if (failure != null) {
                retryLater();
            } else {
                lastId = from;
                read();
            }
        });
    }

    /** Stops the loop and closes its connection; a notice being handed on may still arrive. Idempotent. */
    @Override
    public void close() {
        closed = true;
        connections.release(connection);
    }
}
