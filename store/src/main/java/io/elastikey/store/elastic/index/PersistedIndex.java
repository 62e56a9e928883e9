// PersistedIndex -- the in-storage table: key -> location of its newest record, in a persisted Chronicle Map.
package io.elastikey.store.elastic.index;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.log.DirectorySync;
import io.elastikey.store.elastic.log.LogRecovery;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-storage table of the reference design, kept in a Chronicle Map persisted to
 * {@code index.cm} so that a restart maps the file instead of rescanning the log.
 *
 * <h2>Entry layout</h2>
 * Key: the store key's bytes. Value: 12 bytes, three little-endian ints (Chronicle reads in the
 * platform's order; both supported platforms, x86-64 and ARM64, are little-endian):
 * {@code segmentId, offset, recordLength}.
 *
 * <p>The map file is only trusted up to the last checkpoint: recovery replays the log after it.
 * After an unclean shutdown the map is opened with Chronicle's recovery, which releases locks a
 * killed process held and drops half-written entries.
 */
public final class PersistedIndex implements AutoCloseable, LogRecovery.Index {

    private static final Logger LOG = LoggerFactory.getLogger(PersistedIndex.class);
    private static final int VALUE_SIZE = 12;
    private static final ThreadLocal<byte[]> VALUE_SCRATCH = ThreadLocal.withInitial(() -> new byte[VALUE_SIZE]);

    private final Path file;
    private final ChronicleMap<byte[], byte[]> map;

    private PersistedIndex(Path file, ChronicleMap<byte[], byte[]> map) {
        this.file = file;
        this.map = map;
    }

    /**
     * Opens the index file, creating it when absent.
     *
     * @param recover true after an unclean shutdown: run Chronicle's recovery over the file
     */
    public static PersistedIndex open(Path file, long capacity, int averageKeySize, boolean recover)
            throws IOException {
        ChronicleMapBuilder<byte[], byte[]> b = builder(capacity, averageKeySize);
        if (!Files.exists(file)) {
            createAtomically(b, file);
        }
        File f = file.toFile();
        ChronicleMap<byte[], byte[]> m = recover ? recover(b, f) : b.createPersistedTo(f);
        return new PersistedIndex(file, m);
    }

    /**
     * Chronicle's recovery, reported in one line. Left to itself, Chronicle logs an ERROR per inconsistency it
     * repairs (a killed writer leaves some in the map's own bookkeeping, such as a segment's free-space hint) and a
     * warning that recovery needs exclusive access, which the store's directory lock already guarantees: after a
     * kill, an operator would read damage where there is a routine repair.
     */
    private static ChronicleMap<byte[], byte[]> recover(ChronicleMapBuilder<byte[], byte[]> b, File f)
            throws IOException {
        long[] repaired = {0}; // a count and the first message: a badly torn map can report one per entry
        String[] first = {null};
        ChronicleMap<byte[], byte[]> m = b.recoverPersistedTo(f, true, c -> {
            if (repaired[0]++ == 0) {
                first[0] = c.message();
            }
        });
        if (repaired[0] == 0) {
            LOG.info("index {} reopened after an unclean shutdown: nothing to repair", f);
        } else {
            LOG.warn("index {} reopened after an unclean shutdown: Chronicle Map repaired {} inconsistencies in its "
                    + "own bookkeeping (the first: {})", f, repaired[0], first[0]);
        }
        return m;
    }

    private static ChronicleMapBuilder<byte[], byte[]> builder(long capacity, int averageKeySize) {
        return ChronicleMap.of(byte[].class, byte[].class)
                .name("elasticstore-index")
                .entries(capacity)
                .averageKeySize(averageKeySize)
                .constantValueSizeBySample(new byte[VALUE_SIZE])
                .maxBloatFactor(8)
                // The store closes its index, last. Chronicle's own exit hook closed it while the store was still
                // closing (the JVM runs shutdown hooks at once), and the store's last reads and checkpoint failed.
                .skipCloseOnExitHook(true);
    }

    /**
     * Creates an empty index beside {@code file} and renames it into place. Chronicle writes its
     * header while creating; a process killed in the middle would leave a header that a later
     * open waits on (for a minute) as if another process were still writing it. A name that only
     * ever refers to a complete file avoids that.
     */
    private static void createAtomically(ChronicleMapBuilder<byte[], byte[]> b, Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(tmp);
        b.createPersistedTo(tmp.toFile()).close();
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        DirectorySync.sync(file.getParent());
    }

    /** Fills {@code out} with the key's location; false when the key is absent. */
    public boolean lookup(byte[] key, Location out) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(KeyScratch.of(key), 0, key.length)) {
            MapEntry<byte[], byte[]> e = c.entry();
            if (e == null) {
                return false;
            }
            Data<byte[]> v = e.value();
            RandomDataInput in = v.bytes();
            long at = v.offset();
            out.set(in.readInt(at), in.readInt(at + 4), in.readInt(at + 8));
            return true;
        }
    }

    public boolean contains(byte[] key) {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(KeyScratch.of(key), 0, key.length)) {
            return c.entry() != null;
        }
    }

    /**
     * {@link #put} that also reports the location it replaces, in one query of the map rather than a lookup and
     * then a put (each a hash, a segment lock and a probe: a fifth of a write's CPU at a million keys).
     *
     * @return whether the key had a location, then in {@code previous}
     */
    public boolean replace(byte[] key, int segmentId, int offset, int length, Location previous) {
        byte[] v = VALUE_SCRATCH.get();
        writeInt(v, 0, segmentId);
        writeInt(v, 4, offset);
        writeInt(v, 8, length);
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(KeyScratch.of(key), 0, key.length)) {
            c.updateLock().lock();
            MapEntry<byte[], byte[]> e = c.entry();
            if (e != null) {
                Data<byte[]> old = e.value();
                RandomDataInput in = old.bytes();
                long at = old.offset();
                previous.set(in.readInt(at), in.readInt(at + 4), in.readInt(at + 8));
                c.replaceValue(e, c.wrapValueAsData(v));
                return true;
            }
            c.insert(c.absentEntry(), c.wrapValueAsData(v));
            return false;
        } catch (IllegalStateException e) {
            throw new StoreException("index is full at " + map.longSize() + " keys: open the store with a larger "
                    + "indexCapacity (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public void put(byte[] key, int segmentId, int offset, int length) {
        byte[] v = VALUE_SCRATCH.get();
        writeInt(v, 0, segmentId);
        writeInt(v, 4, offset);
        writeInt(v, 8, length);
        try {
            map.put(key, v);
        } catch (IllegalStateException e) {
            throw new StoreException("index is full at " + map.longSize() + " keys: open the store with a larger "
                    + "indexCapacity (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public void remove(byte[] key) {
        map.remove(key);
    }

    public long size() {
        return map.longSize();
    }

    /**
     * Visits every key with its location; weakly consistent, like a ConcurrentMap's iterator. Each
     * Chronicle segment is copied out under its lock and visited after the lock is released, so a
     * visitor may itself read or write the store.
     */
    public void forEach(EntryVisitor visitor) {
        forEach(visitor, () -> false);
    }

    /**
     * {@link #forEach(EntryVisitor)} that stops at the next segment once {@code done} says so: a walk that has what it
     * came for (a memory tier that is full) need not copy out the rest of a million-entry index.
     */
    public void forEach(EntryVisitor visitor, BooleanSupplier done) {
        List<byte[]> keys = new ArrayList<>();
        List<int[]> locations = new ArrayList<>();
        Location loc = new Location();
        for (int i = 0; i < map.segments() && !done.getAsBoolean(); i++) {
            try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(i)) {
                c.forEachSegmentEntry(e -> {
                    Data<byte[]> v = e.value();
                    long at = v.offset();
                    RandomDataInput in = v.bytes();
                    keys.add(e.key().get().clone()); // get() may reuse one array per context
                    locations.add(new int[] {in.readInt(at), in.readInt(at + 4), in.readInt(at + 8)});
                });
            }
            for (int k = 0; k < keys.size(); k++) {
                int[] l = locations.get(k);
                visitor.visit(keys.get(k), loc.set(l[0], l[1], l[2]));
            }
            keys.clear();
            locations.clear();
        }
    }

    /**
     * {@link #forEach(EntryVisitor, BooleanSupplier)} without garbage, for the resizer, which walks a million entries
     * while lookups run (a key array and an {@code int[3]} per entry were 60 MB of young garbage per walk at a million
     * keys, and the collections they caused stopped every lookup). A segment's keys and locations are copied into
     * buffers this walk reuses, outside the segment's lock as before; the key array handed to the visitor is reused
     * too (one per key length), so <b>the visitor must not keep it</b>: copy it if it must outlive the call.
     */
    public void forEachReusingKeys(EntryVisitor visitor, BooleanSupplier done) {
        forEachReusingKeys(visitor, done, null);
    }

    /**
     * {@link #forEachReusingKeys(EntryVisitor, BooleanSupplier)} holding {@code held} (unless null) from before each
     * segment is copied until its entries are visited: with the lock its writers take, a walk sees no entry change
     * between reading and visiting it, so it may copy the entries elsewhere without ever putting back a stale one.
     */
    public void forEachReusingKeys(EntryVisitor visitor, BooleanSupplier done, Lock held) {
        SegmentBuffer buffer = new SegmentBuffer();
        Location loc = new Location();
        for (int i = 0; i < map.segments() && !done.getAsBoolean(); i++) {
            if (held != null) {
                held.lock();
            }
            try {
                visitSegment(i, buffer, loc, visitor);
            } finally {
                if (held != null) {
                    held.unlock();
                }
            }
        }
    }

    private void visitSegment(int i, SegmentBuffer buffer, Location loc, EntryVisitor visitor) {
        buffer.clear();
        try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(i)) {
            c.forEachSegmentEntry(e -> {
                Data<byte[]> k = e.key();
                Data<byte[]> v = e.value();
                long at = v.offset();
                RandomDataInput in = v.bytes();
                buffer.add(k.bytes(), k.offset(), (int) k.size(), in.readInt(at), in.readInt(at + 4),
                        in.readInt(at + 8));
            });
        }
        for (int n = 0; n < buffer.count; n++) {
            visitor.visit(buffer.key(n), loc.set(buffer.locations[3 * n], buffer.locations[3 * n + 1],
                    buffer.locations[3 * n + 2]));
        }
    }

    /** One segment's keys back to back and their locations, reused from segment to segment. */
    private static final class SegmentBuffer {
        byte[] keyBytes = new byte[1 << 16];
        int[] keyStarts = new int[1024];
        int[] locations = new int[3 * 1024];
        byte[][] keyByLength = new byte[64][];
        int count;
        int end;

        void clear() {
            count = 0;
            end = 0;
        }

        void add(RandomDataInput keyIn, long keyOffset, int keyLength, int segment, int offset, int length) {
            if (count + 1 >= keyStarts.length) {
                keyStarts = java.util.Arrays.copyOf(keyStarts, keyStarts.length * 2);
                locations = java.util.Arrays.copyOf(locations, locations.length * 2);
            }
            if (end + keyLength > keyBytes.length) {
                keyBytes = java.util.Arrays.copyOf(keyBytes, Math.max(keyBytes.length * 2, end + keyLength));
            }
            keyIn.read(keyOffset, keyBytes, end, keyLength);
            keyStarts[count] = end;
            locations[3 * count] = segment;
            locations[3 * count + 1] = offset;
            locations[3 * count + 2] = length;
            end += keyLength;
            count++;
            keyStarts[count] = end;
        }

        /** Entry n's key in the array kept for its length: valid until the next call for that length. */
        byte[] key(int n) {
            int from = keyStarts[n];
            int length = keyStarts[n + 1] - from;
            if (length >= keyByLength.length) {
                keyByLength = java.util.Arrays.copyOf(keyByLength, length + 1);
            }
            byte[] key = keyByLength[length];
            if (key == null) {
                key = new byte[length];
                keyByLength[length] = key;
            }
            System.arraycopy(keyBytes, from, key, 0, length);
            return key;
        }
    }

    /** Receives index entries; the location object is reused between calls. */
    @FunctionalInterface
    public interface EntryVisitor {
        void visit(byte[] key, Location location);
    }

    /**
     * Writes the map's dirty pages to disk. Chronicle Map exposes no msync, but on Linux an fsync of
     * the file covers pages dirtied through a shared mapping: the page cache is one per file.
     */
    public void flush() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /** The file's apparent length; it is sparse, so the blocks in use may be fewer. */
    public long fileBytes() throws IOException {
        return Files.size(file);
    }

    public Path file() {
        return file;
    }

    @Override
    public void close() {
        map.close();
    }

    private static void writeInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }
}
