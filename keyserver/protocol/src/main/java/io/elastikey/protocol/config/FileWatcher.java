package io.elastikey.protocol.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
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

    private final ScheduledExecutorService timer;
    private final List<Group> groups = new ArrayList<>();

    public FileWatcher(Duration interval) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "file-watcher");
            t.setDaemon(true);
            return t;
        });
        long millis = Math.max(50, interval.toMillis());
        timer.scheduleWithFixedDelay(this::poll, millis, millis, TimeUnit.MILLISECONDS);
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
            String now = fingerprint(group.listing);
            if (now.equals(group.lastSeen)) {
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

    private static String fingerprint(Listing listing) {
        List<Path> files;
        try {
            files = listing.files();
        } catch (IOException e) {
            return "unlistable";
        }
        StringBuilder sb = new StringBuilder();
        for (Path file : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                sb.append(file).append('/').append(a.lastModifiedTime().toMillis()).append('/').append(a.size()).append('/')
                        .append(Objects.toString(a.fileKey())).append(';');
            } catch (IOException e) {
                sb.append("missing;");
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private static final class Group {
        final String what;
        final Listing listing;
        final ReloadAction reload;
        String lastSeen;

        Group(String what, Listing listing, ReloadAction reload, String lastSeen) {
            this.what = what;
            this.listing = listing;
            this.reload = reload;
            this.lastSeen = lastSeen;
        }
    }
}
