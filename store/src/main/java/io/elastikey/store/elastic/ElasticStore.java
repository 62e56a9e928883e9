// ElasticStore -- the elastic scale-up store: every entry on disk, a resizable fraction in memory.
package io.elastikey.store.elastic;

import io.elastikey.store.CorruptRecordException;
import io.elastikey.store.KeyValueStore;
import io.elastikey.store.StoreException;
import io.elastikey.store.StoreStats;
import io.elastikey.store.elastic.hot.FrequencySketch;
import io.elastikey.store.elastic.hot.HotTier;
import io.elastikey.store.elastic.hot.KeyHash;
import io.elastikey.store.elastic.hot.LocationTable;
import io.elastikey.store.elastic.hot.ReaderEpochs;
import io.elastikey.store.elastic.index.Checkpoint;
import io.elastikey.store.elastic.index.Location;
import io.elastikey.store.elastic.index.PersistedIndex;
import io.elastikey.store.elastic.log.Log;
import io.elastikey.store.elastic.log.RecordFormat;
import io.elastikey.store.elastic.log.RecordReader;
import io.elastikey.store.elastic.log.Segment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elastic scale-up database of the dReDBox key-server use case (D2.6, section 6), rebuilt
 * for the JVM.
 *
 * <h2>Design</h2>
 * Every entry is on disk; a fraction chosen by a {@link ResidencyPolicy} is also in memory, and
 * that fraction's budget changes at run time ({@link #resize(long)}), the way a disaggregated
 * platform lends a VM more memory at peak load and takes it back after. Three parts:
 * <ol>
 *   <li><b>The log</b> ({@code log/}): append-only segment files of CRC32C-checked records.
 *       Puts and deletes (tombstones) are appended; nothing is overwritten in place. It is the
 *       truth from which everything else can be rebuilt.
 *   <li><b>The in-storage table</b> ({@code index/}): key to (segment, offset, length) in a
 *       persisted Chronicle Map. A checkpoint file records up to where it reflects the log, so a
 *       restart replays only the log's tail.
 *   <li><b>The in-memory table</b> ({@code hot/}): values of the chosen entries in an off-heap
 *       open-addressing table of our own ({@code OffHeapTable}: native slots, a slab of entry
 *       blocks, lookups without a lock). Values never sit on the Java heap.
 * </ol>
 * A lookup tries the in-memory table, then falls through to the index and one positional read of
 * the record into a per-thread direct buffer, exactly the flow of the report's figure 4. The index
 * is asked through {@code hot.LocationTable}, its locations again in native memory, which answers
 * with one cache miss where Chronicle Map takes a locked query; the record's key check makes that
 * table's answer a hint, and the index is queried only when it is wrong or missing.
 *
 * <h2>Concurrency</h2>
 * Lookups take no lock. Writes take the key's stripe lock, then the store's write lock across
 * the append and the index update, so the index always reflects a prefix of the log (what a
 * checkpoint needs), then update the memory tier, still under the stripe lock. Memory-tier
 * admissions, resize copies and compaction moves take the same stripe lock and re-check the index
 * under it, so the memory tier never holds a value older than the index. A reader may see a write
 * before its fsync completes; a write is acknowledged only after it.
 *
 * <p>The in-memory table is freed with {@code close()} when a resize replaces it; every access to
 * it happens inside a {@link ReaderEpochs} section, so it is freed only once nobody is inside (the
 * table frees an outgrown slot array the same way, without waiting).
 *
 * <h2>Files</h2>
 * {@code NNNNNNNNNN.seg} (log segments, layout in {@link RecordFormat}), {@code index.cm} (the
 * index), {@code checkpoint} (layout in {@link Checkpoint}), {@code LOCK} (owner's pid).
 */
public final class ElasticStore implements KeyValueStore {

    private static final Logger LOG = LoggerFactory.getLogger(ElasticStore.class);
    private static final ThreadLocal<Location> LOCATIONS = ThreadLocal.withInitial(Location::new);
    static final String INDEX_FILE = "index.cm";

    private final ElasticStoreConfig config;
    private final DirectoryLock dirLock;
    final Log log;
    final PersistedIndex index;
    /**
     * The index's locations in memory, for lookups that miss the memory tier; filled after opening. Null when the
     * configuration leaves it out ({@link ElasticStoreConfig#locationTable()}), and for a store that reads past the
     * page cache: there a miss waits for the device, beside which the index query is nothing, and the store runs
     * under a memory limit, where the table's memory is taken from the page cache the index's mapped file needs (in
     * a 1 GiB cgroup holding two million keys, loading slowed from 21 s to over 13 minutes).
     */
    final LocationTable locations;
    /**
     * Many stripes, because writes lock them a batch at a time: the event loop's SETs and compaction's moves each
     * lock up to {@link #BATCH} keys' stripes, and with 1,024 stripes two batches shared one 98% of the time, so
     * the loop waited on compaction's appends (a lock profile under redis-benchmark SETs: 200 ms of a 5-second run).
     * With 65,536, 6% of the time; the locks take some 3 MB of heap.
     */
    final StripedLocks stripes = new StripedLocks(65536);
    final ReentrantLock writeLock = new ReentrantLock();
    final ReaderEpochs epochs = new ReaderEpochs();
    final FrequencySketch sketch;
    private final ToIntFunction<byte[]> frequencyOf = this::frequency;
    volatile Tiers tiers;
    private final Resizer resizer;
    final Compactor compactor;
    private final ScheduledExecutorService maintenance;
    private final Object checkpointLock = new Object();
    private long checkpointedSequence;

    private final LookupStats lookups;
    private volatile boolean closed;

    /** The memory tier in use, and the one a resize is filling (null when none runs). */
    record Tiers(HotTier current, HotTier migrating) {
    }

    private ElasticStore(ElasticStoreConfig config, DirectoryLock dirLock, Log log, PersistedIndex index,
                         long checkpointedSequence) {
        this.config = config;
        this.dirLock = dirLock;
        this.log = log;
        this.index = index;
        this.locations = config.locationTable() && !config.directReads() ? new LocationTable(index.size(), epochs)
                : null;
        this.checkpointedSequence = checkpointedSequence;
        this.lookups = new LookupStats(config.recordLatency());
        this.sketch = config.residencyPolicy() == ResidencyPolicy.FREQUENCY
                ? new FrequencySketch(Math.max(config.indexCapacity(), index.size()))
                : null;
        this.tiers = new Tiers(HotTier.empty(), null);
        this.resizer = new Resizer(this);
        this.compactor = new Compactor(this);
        this.maintenance = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "elasticstore-maintenance");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens the store in {@code config.directory()}, creating it if needed, recovering from an
     * unclean shutdown if there was one, and starts filling the memory tier in the background.
     *
     * @throws io.elastikey.store.StoreLockedException when another process has the directory open
     */
    public static ElasticStore open(ElasticStoreConfig config) {
        DirectoryLock lock = null;
        try {
            Files.createDirectories(config.directory());
            lock = DirectoryLock.acquire(config.directory());
            Recovery.Result r = Recovery.run(config);
            ElasticStore store = new ElasticStore(config, lock, r.log(), r.index(), r.checkpointedSequence());
            store.start();
            return store;
        } catch (IOException e) {
            closeQuietly(lock);
            throw new StoreException("cannot open store in " + config.directory() + ": " + describe(e), e);
        } catch (RuntimeException e) {
            closeQuietly(lock);
            throw e;
        }
    }

    /**
     * An open failure in the operating system's words and the file it concerned ("permission denied: .../LOCK"):
     * the exceptions of {@code java.nio.file} put only the file name in their message.
     */
    private static String describe(IOException e) {
        if (e instanceof java.nio.file.AccessDeniedException denied) {
            return "permission denied: " + denied.getFile();
        }
        if (e instanceof java.nio.file.NoSuchFileException missing) {
            return "no such file or directory: " + missing.getFile();
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException exists) {
            return "not a directory: " + exists.getFile();
        }
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
            return fs.getReason().toLowerCase(java.util.Locale.ROOT) + ": " + fs.getFile();
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private void start() {
        if (locations != null) {
            maintenance.execute(() -> runQuietly("filling the location table", this::fillLocations));
        }
        if (config.memoryBudgetBytes() > 0) {
            resizer.resize(config.memoryBudgetBytes(), config.loadOnOpen());
        }
        if (config.checkpointIntervalMillis() > 0) {
            maintenance.scheduleWithFixedDelay(() -> runQuietly("checkpoint", this::periodicCheckpoint),
                    config.checkpointIntervalMillis(), config.checkpointIntervalMillis(), TimeUnit.MILLISECONDS);
        }
        if (config.compactionIntervalMillis() > 0) {
            maintenance.scheduleWithFixedDelay(() -> runQuietly("compaction",
                    () -> compactor.compactEligible(config.checkpointIntervalMillis() > 0)),
                    config.compactionIntervalMillis(), config.compactionIntervalMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Copies the index's locations into {@link #locations}, one Chronicle segment at a time under the write lock, so
     * no write lands between reading an entry and copying it; until then lookups ask the index for what is missing.
     * A million keys take 0.3-0.4 s, on the maintenance thread.
     */
    private void fillLocations() {
        long t0 = System.nanoTime();
        index.forEachReusingKeys((key, loc) -> locations.put(KeyHash.hash64(key), loc.segmentId, loc.offset,
                loc.length), () -> closed, writeLock);
        LOG.debug("location table of {} filled with {} entries in {} ms", config.directory(), locations.size(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    public ElasticStoreConfig config() {
        return config;
    }

    // ---- lookups ----------------------------------------------------------------------------

    @Override
    public byte[] get(byte[] key) {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            long t0 = lookups.start();
            long hash = KeyHash.hash64(key);
            byte[] v = getInMemory(key, hash);
            countAccess(hash);
            if (v != null) {
                lookups.hit(t0);
                return v;
            }
            v = readCold(key, hash);
            lookups.miss(t0, v != null);
            return v;
        } finally {
            epochs.exit(slot);
        }
    }

    @Override
    public int get(byte[] key, ByteBuffer dst) {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            long t0 = lookups.start();
            long hash = KeyHash.hash64(key); // one hash for the memory tier, the sketch and admission
            int n = getInMemory(key, hash, dst);
            countAccess(hash);
            if (n != NOT_FOUND) {
                lookups.hit(t0);
                return n;
            }
            n = readCold(key, dst, hash);
            lookups.miss(t0, n != NOT_FOUND);
            return n;
        } finally {
            epochs.exit(slot);
        }
    }

    /** What {@link #getIfInMemory} returns when the key's value is not in the memory tier. */
    public static final int NOT_IN_MEMORY = -2;

    /**
     * {@link #get(byte[], ByteBuffer)} restricted to the memory tier, for callers that must not
     * block (an event loop): never reads the disk, takes no lock and allocates nothing. A hit is
     * counted exactly as {@code get} counts one (hit counter, latency, frequency sketch);
     * {@link #NOT_IN_MEMORY} counts nothing, so the caller's later {@code get} counts that lookup
     * once. A key absent from the store is also {@code NOT_IN_MEMORY}: only the index knows.
     *
     * @return the value's length (copied into {@code dst} when it fits), or {@link #NOT_IN_MEMORY}
     */
    public int getIfInMemory(byte[] key, ByteBuffer dst) {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            long t0 = lookups.start();
            long hash = KeyHash.hash64(key);
            int n = getInMemory(key, hash, dst);
            if (n == NOT_FOUND) {
                return NOT_IN_MEMORY;
            }
            countAccess(hash);
            lookups.hit(t0);
            return n;
        } finally {
            epochs.exit(slot);
        }
    }

    @Override
    public boolean contains(byte[] key) {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            return index.contains(key);
        } finally {
            epochs.exit(slot);
        }
    }

    /**
     * Native bytes of the location table that spares lookups past the memory tier an index query: 16 per slot, about
     * 32 MB at a million keys. Not part of the memory budget, which is the values'; like the index's own mapped file,
     * it grows with the number of keys.
     */
    public long locationTableBytes() {
        return locations == null ? 0 : locations.bytes();
    }

    /** Fsyncs the log has done for durable writes so far: with group commit, fewer than the writes they cover. */
    public long logFsyncs() {
        return log.fsyncs();
    }

    /**
     * The sequence number of the newest record in the log: every put, delete and compaction copy appends one, and
     * recovery resumes from it, so it is the same after a clean close and reopen as before.
     */
    @Override
    public OptionalLong writeSequence() {
        return OptionalLong.of(log.lastSequence());
    }

    @Override
    public long size() {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            return index.size();
        } finally {
            epochs.exit(slot);
        }
    }

    /**
     * Visits every entry; {@link #close()} waits for a walk in progress to end. An entry whose
     * record is damaged is skipped with a warning (a get of it reports the damage).
     */
    @Override
    public void forEach(BiConsumer<byte[], byte[]> visitor) {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            index.forEach((key, loc) -> {
                byte[] v;
                try {
                    v = readStored(key);
                } catch (CorruptRecordException e) {
                    LOG.warn("forEach skips a damaged record: {}", e.getMessage());
                    return;
                }
                if (v != null) {
                    visitor.accept(key, v);
                }
            });
        } finally {
            epochs.exit(slot);
        }
    }

    /**
     * Reads the keys the memory tier holds first, then the others in the order of their records in the log, so the
     * reads go through the files in order rather than at random (a key server reloading a million keys after a
     * restart: docs/store.md). Neither counted as lookups nor admitted to the memory tier.
     */
    @Override
    public void getAll(List<byte[]> keys, BiConsumer<byte[], byte[]> visitor) {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            List<Located> cold = new ArrayList<>();
            for (byte[] key : keys) {
                byte[] hot = readHot(key);
                Location loc = new Location();
                if (hot != null) {
                    visitor.accept(key, hot);
                } else if (index.lookup(key, loc)) {
                    cold.add(new Located(key, loc));
                }
            }
            cold.sort(Comparator.comparingInt((Located c) -> c.loc().segmentId).thenComparingInt(c -> c.loc().offset));
            for (Located c : cold) {
                ByteBuffer value = readAt(c.key(), c.loc());
                byte[] out = value != null ? copy(value) : readStored(c.key()); // moved meanwhile: look it up again
                if (out != null) {
                    visitor.accept(c.key(), out);
                }
            }
        } finally {
            epochs.exit(slot);
        }
    }

    /** A key and where the index had its record. */
    private record Located(byte[] key, Location loc) {
    }

    private static byte[] copy(ByteBuffer value) {
        byte[] out = new byte[value.remaining()];
        value.get(out);
        return out;
    }

    private byte[] readHot(byte[] key) {
        ReaderEpochs.Slot slot = epochs.enter();
        try {
            return getInMemory(key, KeyHash.hash64(key));
        } finally {
            epochs.exit(slot);
        }
    }

    /**
     * The key's value from the memory tier, or from the tier a resize is filling when the current one lacks it: that
     * tier holds nothing older than the index either (writers update both, copies re-check the index), so a fill after
     * a restart or a scale-up answers lookups from its first entries rather than from its publication. Inside an
     * epoch section, which keeps either tier from being freed under the read.
     */
    private int getInMemory(byte[] key, long hash, ByteBuffer dst) {
        Tiers t = tiers;
        int n = t.current().get(key, hash, dst);
        if (n == NOT_FOUND && t.migrating() != null) {
            n = t.migrating().get(key, hash, dst);
        }
        return n;
    }

    /** {@link #getInMemory(byte[], long, ByteBuffer)} as a new array, or null. */
    private byte[] getInMemory(byte[] key, long hash) {
        Tiers t = tiers;
        byte[] v = t.current().get(key, hash);
        if (v == null && t.migrating() != null) {
            v = t.migrating().get(key, hash);
        }
        return v;
    }

    /**
     * {@link #readRecord(byte[], Location)} that reads where {@link #locations} points first, and asks the index only
     * when that is not the key's record. Inside an epoch section, which keeps the location table from being freed.
     */
    private ByteBuffer readRecord(byte[] key, long hash, Location loc) {
        if (locations != null && locations.find(hash, loc)) {
            Segment seg = log.segmentEndingIn(loc.segmentId, LocationTable.SEGMENT_BITS);
            ByteBuffer value = read(seg, key, loc, false);
            if (value != null) {
                loc.segmentId = seg.id(); // admission checks the index still points here
                return value;
            }
        }
        return readRecord(key, loc);
    }

    /** Reads the key's record from disk into this thread's buffer; null when absent. */
    private ByteBuffer readRecord(byte[] key, Location loc) {
        for (int attempt = 0; attempt < 8; attempt++) {
            if (!index.lookup(key, loc)) {
                return null;
            }
            ByteBuffer value = readAt(key, loc);
            if (value != null) {
                return value;
            }
        }
        throw new StoreException("key kept moving during 8 lookups; compaction and reads are racing abnormally");
    }

    /** The record at {@code loc} in this thread's buffer; null when compaction took its segment since the lookup. */
    private ByteBuffer readAt(byte[] key, Location loc) {
        return read(log.segment(loc.segmentId), key, loc, true);
    }

    /**
     * The key's record at {@code loc} in {@code seg} (null: the segment is gone), in this thread's buffer; null when
     * compaction took the segment meanwhile, or, for a location that is only a hint ({@code trusted} false), when
     * the record there is not the key's.
     */
    private static ByteBuffer read(Segment seg, byte[] key, Location loc, boolean trusted) {
        if (seg == null || !seg.acquire()) {
            return null;
        }
        try {
            return trusted ? RecordReader.readValue(seg, loc.offset, loc.length, key)
                    : RecordReader.readValueIfThere(seg, loc.offset, loc.length, key);
        } catch (IOException e) {
            throw new StoreException("cannot read " + seg + ": " + e.getMessage(), e);
        } finally {
            seg.release();
        }
    }

    private byte[] readCold(byte[] key, long hash) {
        Location loc = LOCATIONS.get();
        ByteBuffer v = readRecord(key, hash, loc);
        if (v == null) {
            return null;
        }
        byte[] out = new byte[v.remaining()];
        v.get(v.position(), out); // leaves the position: the admission below reads the same bytes
        if (sketch != null && wantsAdmission(key, out.length, hash)) {
            admit(key, v, loc, hash);
        }
        return out;
    }

    private int readCold(byte[] key, ByteBuffer dst, long hash) {
        Location loc = LOCATIONS.get();
        ByteBuffer v = readRecord(key, hash, loc);
        if (v == null) {
            return NOT_FOUND;
        }
        int n = v.remaining();
        if (n <= dst.remaining()) {
            int start = v.position();
            dst.put(v);
            v.position(start);
        }
        if (sketch != null && wantsAdmission(key, n, hash)) {
            admit(key, v, loc, hash); // from this thread's read buffer: no copy on the heap
        }
        return n;
    }

    // ---- memory-tier admission (FREQUENCY policy) ------------------------------------------

    /** Counts the access of the key with this hash in the sketch, if there is one. */
    private void countAccess(long hash) {
        if (sketch != null) {
            sketch.increment(hash);
        }
    }

    int frequency(byte[] key) {
        return sketch == null ? 0 : sketch.frequency(KeyHash.hash64(key));
    }

    private boolean wantsAdmission(byte[] key, int valueLength, long hash) {
        Tiers t = tiers;
        return t.migrating() == null && t.current().mightAdmit(key.length, valueLength, hash, sketch);
    }

    /**
     * After a miss that {@link #wantsAdmission} approved: offer the value read at {@code loc} to
     * the memory tier, if the index still points there.
     */
    private void admit(byte[] key, ByteBuffer value, Location loc, long hash) {
        int seg = loc.segmentId;
        int off = loc.offset;
        ReentrantLock stripe = stripes.of(hash);
        if (!stripe.tryLock()) {
            return; // a writer is on this key: its value is about to change anyway
        }
        ReaderEpochs.Slot slot = epochs.enter();
        try {
            Tiers t = tiers;
            if (t.migrating() == null && index.lookup(key, loc) && loc.sameAs(seg, off)) {
                t.current().tryAdmit(key, hash, value, frequencyOf, sketch.frequency(hash));
            }
        } finally {
            epochs.exit(slot);
            stripe.unlock();
        }
    }

    // ---- writes -------------------------------------------------------------------------------

    @Override
    public void put(byte[] key, byte[] value) {
        long seq;
        ReaderEpochs.Slot slot = enterOpen();
        try {
            seq = write(key, value);
        } finally {
            epochs.exit(slot);
        }
        log.awaitDurable(seq);
    }

    /**
     * Writes every entry, then waits once for the durability of the last. Entries go to the log in batches of up to
     * {@link #BATCH} with one write each ({@link Log#appendPuts}), under the stripe locks of the batch's keys and
     * one turn of the write lock: the RESP server's pipelined SETs and bulk loads come here.
     */
    @Override
    public void putAll(List<? extends Map.Entry<byte[], byte[]>> entries) {
        awaitDurable(putAllVisible(entries));
    }

    /**
     * {@link #putAll} without its durability wait: every entry is written and visible to readers when this returns,
     * and the returned ticket goes to {@link #awaitDurable} (or {@link #whenDurable}) before anyone is told the write
     * is done. Never waits for an fsync, so an event loop may call it: the RESP server writes SETs on its loop and
     * answers them when their group commit is done, as Redis writes its append-only file on its loop.
     *
     * @throws IllegalArgumentException before writing anything, when an entry breaks a limit
     */
    public long putAllVisible(List<? extends Map.Entry<byte[], byte[]>> entries) {
        for (Map.Entry<byte[], byte[]> e : entries) {
            checkEntry(e.getKey(), e.getValue()); // all or nothing for bad arguments
        }
        long last = 0;
        Log.Appended[] at = new Log.Appended[entries.size()];
        ReaderEpochs.Slot slot = enterOpen();
        try {
            for (int from = 0; from < entries.size(); from += BATCH) {
                last = writeBatch(entries, from, Math.min(entries.size(), from + BATCH), at);
            }
        } finally {
            epochs.exit(slot);
        }
        return last;
    }

    /** Blocks until the writes up to {@code ticket} ({@link #putAllVisible}) are as durable as the fsync policy promises. */
    public void awaitDurable(long ticket) {
        if (ticket > 0) {
            log.awaitDurable(ticket);
        }
    }

    /**
     * Never blocks: runs {@code then} once the writes up to {@code ticket} are as durable as the fsync policy promises
     * (with null) or the log has failed (with the failure); at once on this thread when they already are, else on the
     * log's syncer thread, so {@code then} must be quick.
     */
    public void whenDurable(long ticket, Consumer<RuntimeException> then) {
        if (ticket <= 0) {
            then.accept(null);
        } else {
            log.whenDurable(ticket, then);
        }
    }

    /** The {@link KeyHash#hash64} of the keys of entries {@code from} to {@code to}. */
    static long[] hashes(List<? extends Map.Entry<byte[], byte[]>> entries, int from, int to) {
        long[] hashes = new long[to - from];
        for (int i = from; i < to; i++) {
            hashes[i - from] = KeyHash.hash64(entries.get(i).getKey());
        }
        return hashes;
    }

    /** Entries a batch of {@link #putAll} writes at once: the stripe locks it holds together. */
    static final int BATCH = 64;

    /**
     * Appends entries {@code from} to {@code to}, indexes them and updates the memory tier, as {@link #write} does
     * for one; returns the last one's sequence number. When the log fails partway, the entries it took are indexed
     * and in the tier before the failure goes on to the caller, so nothing in memory is older than the index.
     */
    private long writeBatch(List<? extends Map.Entry<byte[], byte[]>> entries, int from, int to, Log.Appended[] at) {
        long[] hashes = hashes(entries, from, to); // one per key: its stripe, the location table, the memory tier
        int[] locked = stripes.lockAll(hashes, to - from);
        int indexed = from;
        try {
            writeLock.lock();
            try {
                try {
                    log.appendPuts(entries, from, to, at);
                } finally {
                    for (; indexed < to && at[indexed] != null; indexed++) {
                        pointIndexAt(entries.get(indexed).getKey(), hashes[indexed - from], at[indexed]);
                    }
                }
            } finally {
                writeLock.unlock();
            }
            return at[to - 1].sequence();
        } finally {
            for (int i = from; i < indexed; i++) {
                putInTiers(entries.get(i).getKey(), hashes[i - from], entries.get(i).getValue());
            }
            stripes.unlockAll(locked);
        }
    }

    /**
     * A put up to, not including, the durability wait; returns the record's sequence number.
     * Called inside an epoch section.
     */
    private long write(byte[] key, byte[] value) {
        checkEntry(key, value);
        long hash = KeyHash.hash64(key); // its stripe, the location table, the memory tier
        ReentrantLock stripe = stripes.of(hash);
        stripe.lock();
        try {
            return putHeld(key, hash, value);
        } finally {
            stripe.unlock();
        }
    }

    /**
     * Appends the put, points the index at it and updates the memory tiers; returns its sequence number. Caller holds
     * the key's stripe lock and is inside an epoch section.
     */
    private long putHeld(byte[] key, long hash, byte[] value) {
        long seq = appendAndIndex(RecordFormat.TYPE_PUT, key, hash, value);
        putInTiers(key, hash, value);
        return seq;
    }

    /**
     * Replaces the key's value where it is in memory, adds it where there is room, and drops a value that no longer
     * fits. Callers hold the key's stripe lock and are inside an epoch section.
     */
    private void putInTiers(byte[] key, long hash, byte[] value) {
        Tiers t = tiers;
        if (t.migrating() != null) {
            t.migrating().putIfRoom(key, hash, value); // the resizer copies under this stripe lock too
        }
        t.current().putIfRoom(key, hash, value);
    }

    @Override
    public boolean delete(byte[] key) {
        checkKey(key);
        long seq;
        long hash = KeyHash.hash64(key);
        ReentrantLock stripe = stripes.of(hash);
        ReaderEpochs.Slot slot = enterOpen();
        stripe.lock();
        try {
            seq = remove(key, hash);
        } finally {
            stripe.unlock();
            epochs.exit(slot);
        }
        if (seq < 0) {
            return false;
        }
        log.awaitDurable(seq);
        return true;
    }

    /**
     * Writes the tombstone of a present key and takes it out of the memory tiers; -1, with nothing written, when the
     * key is absent. Caller holds the key's stripe lock and is inside an epoch section.
     */
    private long remove(byte[] key, long hash) {
        long seq = appendAndIndex(RecordFormat.TYPE_DELETE, key, hash, null);
        if (seq >= 0) {
            Tiers t = tiers;
            if (t.migrating() != null) {
                t.migrating().remove(key, hash);
            }
            t.current().remove(key, hash);
        }
        return seq;
    }

    /**
     * Replaces the key's value with what {@code remap} makes of the current one, with no other write of the key
     * between that read and this write: what Redis's INCR, APPEND, SET NX and GETDEL promise by running whole on its
     * one thread, and the RESP server's versions of them are built on. {@code remap} gets the current value (null when
     * the key is absent) and returns the new one, null to delete the key, or the very array it was given to leave the
     * key as it is, in which case nothing is written. It runs under the key's stripe lock, so it must be quick and
     * must not call the store; what it throws reaches the caller with nothing written. Returns the value before the
     * change, once the change is as durable as a {@link #put}.
     *
     * @throws IllegalArgumentException when the new value breaks the store's limits (nothing is written)
     */
    public byte[] compute(byte[] key, UnaryOperator<byte[]> remap) {
        checkKey(key);
        long hash = KeyHash.hash64(key);
        ReentrantLock stripe = stripes.of(hash);
        long seq = -1;
        byte[] before;
        ReaderEpochs.Slot slot = enterOpen();
        stripe.lock();
        try {
            before = readStored(key);
            byte[] after = remap.apply(before);
            if (after != null && after != before) {
                checkEntry(key, after);
                seq = putHeld(key, hash, after);
            } else if (after == null && before != null) {
                seq = remove(key, hash);
            }
        } finally {
            stripe.unlock();
            epochs.exit(slot);
        }
        if (seq >= 0) {
            log.awaitDurable(seq);
        }
        return before;
    }

    /**
     * Appends the record and points the index at it, both under the write lock. For a delete of
     * an absent key nothing is written and -1 returned. Caller holds the key's stripe lock.
     */
    private long appendAndIndex(byte type, byte[] key, long hash, byte[] value) {
        writeLock.lock();
        try {
            if (type == RecordFormat.TYPE_PUT) {
                Log.Appended a = log.append(type, key, value, value.length);
                pointIndexAt(key, hash, a);
                return a.sequence();
            }
            Location old = LOCATIONS.get();
            if (!index.lookup(key, old)) {
                return -1;
            }
            Log.Appended a = log.append(type, key, null, 0);
            index.remove(key);
            if (locations != null) {
                locations.remove(hash);
            }
            addLive(old.segmentId, -old.length);
            return a.sequence();
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Points the index (and the location table) at a put just appended and moves the live-byte counts; {@code hash}
     * is the key's {@link KeyHash#hash64}. Under the write lock.
     */
    void pointIndexAt(byte[] key, long hash, Log.Appended a) {
        Location old = LOCATIONS.get();
        boolean had = index.replace(key, a.segmentId(), a.offset(), a.length(), old);
        if (locations != null) {
            locations.put(hash, a.segmentId(), a.offset(), a.length());
        }
        addLive(a.segmentId(), a.length());
        if (had) {
            addLive(old.segmentId, -old.length);
        }
    }

    /**
     * {@link #readStored(byte[])} without garbage: the value comes back in an array from {@code scratch}, valid until
     * the caller's next call for the same length. For the resizer, which copies every entry it moves.
     */
    byte[] readStored(byte[] key, ValueScratch scratch) {
        ByteBuffer hot = scratch.buffer();
        int n;
        ReaderEpochs.Slot slot = epochs.enter();
        try {
            n = tiers.current().get(key, hot);
        } finally {
            epochs.exit(slot);
        }
        ByteBuffer v;
        if (n != NOT_FOUND) {
            v = hot.flip();
        } else {
            v = readRecord(key, LOCATIONS.get());
            if (v == null) {
                return null;
            }
        }
        byte[] out = scratch.array(v.remaining());
        v.get(out);
        return out;
    }

    /** The key's value from memory or disk, not counted as a lookup (resize, forEach). */
    byte[] readStored(byte[] key) {
        byte[] v = readHot(key);
        if (v != null) {
            return v;
        }
        ByteBuffer b = readRecord(key, LOCATIONS.get());
        if (b == null) {
            return null;
        }
        return copy(b);
    }

    void addLive(int segmentId, long delta) {
        Segment s = log.segment(segmentId);
        if (s != null) {
            s.addLive(delta);
        }
    }

    private void checkEntry(byte[] key, byte[] value) {
        checkKey(key);
        if (value == null) {
            throw new NullPointerException("value");
        }
        if (value.length > config.maxValueSize()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the store's "
                    + "maxValueSize limit of " + config.maxValueSize() + " bytes");
        }
    }

    private void checkKey(byte[] key) {
        if (key == null) {
            throw new NullPointerException("key");
        }
        if (key.length == 0 || key.length > config.maxKeySize()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is outside the store's limit of 1 to "
                    + config.maxKeySize() + " bytes (maxKeySize)");
        }
    }

    // ---- elasticity -----------------------------------------------------------------------------

    /**
     * Changes the memory budget while reads and writes go on. Scale-up fills the memory tier per
     * the residency policy; scale-down keeps the most valuable entries and frees the rest. A
     * resize already running is abandoned for this one.
     *
     * @return the running operation, for progress and completion
     */
    public ResizeOperation resize(long budgetBytes) {
        checkOpen();
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budgetBytes must be >= 0, was " + budgetBytes);
        }
        return resizer.resize(budgetBytes);
    }

    /** Lookups so far; the resizer watches it to yield to the foreground. */
    long lookupCount() {
        return lookups.lookups();
    }

    boolean isClosed() {
        return closed;
    }

    /** The latest resize started (possibly finished), or null if none ever ran. */
    public ResizeOperation lastResize() {
        return resizer.last();
    }

    /** Compacts every sealed segment whose garbage passes the threshold now; returns how many. */
    public int compactNow() {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            return compactor.compactEligible(false);
        } finally {
            epochs.exit(slot);
        }
    }

    // ---- checkpoints and stats --------------------------------------------------------------

    /** The maintenance thread's checkpoint, once per interval; also where kept segment files no longer used go. */
    private void periodicCheckpoint() throws IOException {
        checkpoint(false);
        log.trimRecycled();
    }

    /**
     * Makes the index durable up to the current end of the log and records that in the checkpoint
     * file, so a restart replays only what comes after; then deletes the segments compaction had moved before it
     * began ({@link Compactor}), whose copies it now covers. Returns how many it deleted.
     */
    int checkpoint(boolean force) throws IOException {
        synchronized (checkpointLock) {
            List<Segment> covered = compactor.moved(); // before the end is read: their copies lie before it
            Log.Position p;
            writeLock.lock();
            try {
                p = log.endPosition();
            } finally {
                writeLock.unlock();
            }
            if (force || p.sequence() != checkpointedSequence) { // else the last checkpoint already covers them
                log.syncAll();
                index.flush();
                new Checkpoint(p.segmentId(), p.offset(), p.sequence(), false).write(config.directory());
                checkpointedSequence = p.sequence();
            }
            return compactor.remove(covered);
        }
    }

    @Override
    public int maxValueSize() {
        return config.maxValueSize();
    }

    /** Whether lookups that miss memory read past the page cache: asked for, and the file system allows it. */
    public boolean readsDirect() {
        return log.readsDirect();
    }

    @Override
    public StoreStats stats() {
        ReaderEpochs.Slot slot = enterOpen();
        try {
            return statsInside();
        } finally {
            epochs.exit(slot);
        }
    }

    private StoreStats statsInside() {
        HotTier hot = tiers.current();
        long disk = 0;
        for (Segment s : log.segments()) {
            disk += s.size();
        }
        try {
            disk += index.fileBytes();
        } catch (IOException e) {
            LOG.debug("cannot size {}", index.file(), e);
        }
        return new StoreStats(index.size(), disk, hot.entries(), hot.usedBytes(), resizer.targetBudget(),
                lookups.hits(), lookups.misses(), lookups.latencyCopy(), lookups.notFound(),
                lookups.missLatencyCopy());
    }

    // ---- lifecycle ------------------------------------------------------------------------------

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store in " + config.directory() + " is closed");
        }
    }

    /**
     * Enters an epoch section, then checks the store is open. {@link #close()} sets the flag and
     * then waits for sections, so an operation either sees the store closed or finishes before
     * any file or table is released (reading a closed memory tier or index would touch freed memory).
     */
    private ReaderEpochs.Slot enterOpen() {
        ReaderEpochs.Slot slot = epochs.enter();
        if (closed) {
            epochs.exit(slot);
            checkOpen();
        }
        return slot;
    }

    /** Stops background work, writes a clean checkpoint, frees memory and unlocks the directory. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        epochs.synchronize(); // operations in flight finish; new ones see the store closed
        resizer.close();
        maintenance.shutdown(); // no interrupts: a running checkpoint or compaction finishes
        try {
            maintenance.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            checkpoint(true);
            Checkpoint clean = Checkpoint.read(config.directory()).withClean(true);
            clean.write(config.directory());
            LiveBytesFile.write(config.directory(), clean.sequence(), log.segments()); // spares the next open a walk
        } catch (IOException | StoreException e) {
            LOG.warn("store in {} closed without a clean checkpoint; the next open replays the log: {}",
                    config.directory(), e.getMessage());
        }
        Tiers t = tiers;
        tiers = new Tiers(HotTier.empty(), null);
        epochs.synchronize();
        t.current().close();
        if (locations != null) {
            locations.close();
        }
        log.close();
        index.close();
        closeQuietly(dirLock);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing on a failure path: the original failure is what matters
            }
        }
    }

    private void runQuietly(String what, ThrowingRunnable r) {
        if (closed) {
            return;
        }
        try {
            r.run();
        } catch (Exception e) {
            LOG.warn("{} in {} failed: {}", what, config.directory(), e.toString());
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Override
    public String toString() {
        return "ElasticStore{" + config.directory() + "}";
    }
}
