// WarmStartFiles -- what a stop leaves for the next start: the cache's packed keys, sealed, and its hot-key list.
package io.elastikey.keyserver.warmup;

import io.elastikey.keyserver.keys.KeyCacheSnapshot;
import io.elastikey.keyserver.keys.KeyRepository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The two files of a warm start, in the data directory.
 *
 * <ul>
 *   <li>The <b>cache snapshot</b> ({@code key-cache.sealed}, {@link KeyCacheSnapshot}): the packed keys themselves,
 *       sealed, read back whole before the server reports ready, when the store has not been written since. This
 *       is what makes a restart over a million P-256 keys warm within seconds.
 *   <li>The <b>hot-key list</b> ({@code hot-keys}, {@link HotKeyFile}): identifiers, hottest first, which {@link
 *       KeyWarmup#reload} loads from the store while serving. It covers what the snapshot does not: key objects (RSA
 *       and the like), a store written to since the stop, a stop by a kill (no snapshot then, and the list of the last
 *       clean stop).
 * </ul>
 */
public final class WarmStartFiles {
    private static final Logger log = LoggerFactory.getLogger(WarmStartFiles.class);
    /** Identifiers kept between runs: more than the default cache holds, some 60 MB of file at most. */
    private static final int HOT_KEYS_LIMIT = 1_500_000;
    /** The cache snapshot's name in the data directory. */
    public static final String SNAPSHOT = "key-cache.sealed";

    private final Path snapshot;
    private final HotKeyFile hotKeys;
    private volatile long snapshotKeys;

    public WarmStartFiles(Path dataDir) {
        this.snapshot = dataDir.resolve(SNAPSHOT);
        this.hotKeys = new HotKeyFile(dataDir.resolve("hot-keys"));
    }

    /**
     * Reads the snapshot into {@code repository}'s cache (and removes the file, used or not), then returns the
     * hot-key list for {@link KeyWarmup#reload}. Never throws: a file that cannot be read costs only the warm start.
     */
    public List<String> load(KeyRepository repository) {
        long start = System.nanoTime();
        try {
            KeyCacheSnapshot.Loaded loaded = repository.loadCacheSnapshot(snapshot);
            snapshotKeys = loaded.cached();
            if (loaded.cached() > 0 || loaded.shortOf() == null) {
                log.info("key cache snapshot {}: {} keys cached in {} ms{}", snapshot, loaded.cached(),
                        (System.nanoTime() - start) / 1_000_000,
                        loaded.shortOf() == null ? "" : "; the rest not read: " + loaded.shortOf());
            } else if (!loaded.noFile()) {
                log.info("key cache snapshot {} not used: {}", snapshot, loaded.shortOf());
            }
        } catch (IOException | RuntimeException e) {
            log.warn("cannot read the key cache snapshot {} (loading keys from the store instead): {}", snapshot,
                    e.toString());
        }
        try {
            List<String> identifiers = hotKeys.read(HOT_KEYS_LIMIT);
            if (!identifiers.isEmpty()) {
                log.info("{} hot keys of the last run in {}: reloading those not cached while serving",
                        identifiers.size(), hotKeys.path());
            }
            return identifiers;
        } catch (IOException e) {
            log.warn("cannot read the hot-key file {} (starting cold): {}", hotKeys.path(), e.toString());
            return List.of();
        }
    }

    /** Where the cache snapshot is kept. */
    public Path snapshot() {
        return snapshot;
    }

    /** Keys the last {@link #load} took from the snapshot. */
    public long snapshotKeys() {
        return snapshotKeys;
    }

    /**
     * Writes the snapshot, then the hot-key list: the cache's hottest keys, then {@code notReloaded}, the keys of the
     * last run's list this run had not reloaded yet (a server stopped a few seconds after its start must not replace
     * a million-key list with the few thousand it got to). Never throws.
     */
    public void save(KeyRepository repository, List<String> notReloaded) {
        long start = System.nanoTime();
        try {
            long written = repository.saveCacheSnapshot(snapshot);
            if (written >= 0) {
                log.info("saved {} keys of the parsed-key cache to {} in {} ms", written, snapshot,
                        (System.nanoTime() - start) / 1_000_000);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("cannot save the key cache snapshot {} (the next start loads from the store): {}", snapshot,
                    e.toString());
        }
        Set<String> merged = new LinkedHashSet<>(repository.hottestCached(HOT_KEYS_LIMIT));
        for (String identifier : notReloaded) {
            if (merged.size() >= HOT_KEYS_LIMIT) {
                break;
            }
            merged.add(identifier);
        }
        List<String> identifiers = List.copyOf(merged);
        if (identifiers.isEmpty()) {
            return;
        }
        try {
            hotKeys.write(identifiers);
            log.info("saved {} hot keys to {} for the next start", identifiers.size(), hotKeys.path());
        } catch (IOException e) {
            log.warn("cannot save the hot-key file {}: {}", hotKeys.path(), e.toString());
        }
    }
}
