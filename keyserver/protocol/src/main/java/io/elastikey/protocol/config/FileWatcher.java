package io.elastikey.protocol.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Polls files for changes and runs a reload action when any of a group changes.
 *
 * <p>Polling (modification time, size and file key of each path, following symlinks) rather
 * than a {@code WatchService}: certificates are commonly replaced by swapping a symlink
 * (Kubernetes secrets) or renaming over the old file, which directory watches report
 * unreliably. A failed reload is logged and retried at the next change; the old state stays
 * in force, so a half-written certificate never takes the server down.
 */
public final class FileWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FileWatcher.class);

    /** Poll time over total time, inverted: the watcher sleeps this many times as long as a poll takes. */
    private static final long IDLE_SHARE = 10;
    /** Stands for the fingerprint of a directory that could not be listed. */
    private static final long UNLISTABLE = 0x5a17ab1eL;

    private final ScheduledExecutorService timer;
    private final long intervalMillis;
    private final List<Group> groups = new ArrayList<>();

    public FileWatcher(Duration interval) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "file-watcher");
            t.setDaemon(true);
            return t;
        });
        intervalMillis = Math.max(50, interval.toMillis());
        schedule(intervalMillis);
    }

    /**
     * The wait before the next poll: the interval asked, or {@value #IDLE_SHARE} times the CPU time the last poll
     * took if that is longer. Why: a directory of a million certificates takes seconds of CPU to list and examine,
     * and polled back to back that would be a core spent watching; this way the watcher uses at most about a tenth
     * of one, and notices a change later on such a directory rather than never. CPU time, not elapsed time: on a
     * busy machine a poll waits for a core too, and that waiting costs nothing.
     */
    static long nextDelayMillis(long intervalMillis, long pollCpuMillis) {
        return Math.max(intervalMillis, IDLE_SHARE * pollCpuMillis);
    }

    private void schedule(long delayMillis) {
        try {
            timer.schedule(this::pollThenSchedule, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closed meanwhile: no more polls
        }
    }

    private void pollThenSchedule() {
        long start = cpuNanos();
        try {
            poll();
        } finally {
            schedule(nextDelayMillis(intervalMillis, TimeUnit.NANOSECONDS.toMillis(cpuNanos() - start)));
        }
    }

    /** The watcher thread's CPU time, user and system; elapsed time where the JVM cannot measure it. */
    private static long cpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** Runs {@code reload} (on the watcher thread) whenever one of {@code files} changes. */
    public synchronized void watch(String what, List<Path> files, ReloadAction reload) {
        List<Path> fixed = List.copyOf(files);
        watch(what, () -> fixed, reload);
    }

    /**
     * Runs {@code reload} whenever the set of files {@code listing} returns, or one of them, changes: for a
     * directory of certificates, where adding or removing a file is a change too. A listing that fails counts
     * as no files.
     */
    public synchronized void watch(String what, Listing listing, ReloadAction reload) {
        groups.add(new Group(what, listing, reload, fingerprint(listing)));
    }

    /** The files to poll, listed again at every poll. */
    @FunctionalInterface
    public interface Listing {
        List<Path> files() throws IOException;
    }

    /** What to do when files change; throwing keeps the previous state. */
    @FunctionalInterface
    public interface ReloadAction {
        void reload() throws Exception;
    }

    private synchronized void poll() {
        for (Group group : groups) {
            long now = fingerprint(group.listing);
            if (now == group.lastSeen) {
                continue;
            }
            group.lastSeen = now;
            try {
                group.reload.reload();
                log.info("reloaded {} after a change", group.what);
            } catch (Exception e) {
                log.error("reloading {} failed, keeping the previous one: {}", group.what, oneLine(e));
            }
        }
    }

    /** The failure on one log line: a policy with several errors reports them on several lines of its message. */
    static String oneLine(Exception e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    /**
     * A 64-bit digest of the listing: each file's name, modification time, size and identity (device and inode),
     * in order. A digest rather than the text of all that: a million files would make each poll build, and the
     * watcher keep, a string of a hundred megabytes.
     */
    static long fingerprint(Listing listing) {
        List<Path> files;
        try {
            files = listing.files();
        } catch (IOException e) {
            return UNLISTABLE;
        }
        long digest = files.size();
        for (Path file : files) {
            digest = FileStamp.mix(digest, file.toString().hashCode());
            digest = FileStamp.mix(digest, FileStamp.of(file));
        }
        return digest;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private static final class Group {
        final String what;
        final Listing listing;
        final ReloadAction reload;
        long lastSeen;

        Group(String what, Listing listing, ReloadAction reload, long lastSeen) {
            this.what = what;
            this.listing = listing;
            this.reload = reload;
            this.lastSeen = lastSeen;
        }
    }
}
