// Log -- the append-only segment files: appending, rolling over, durability, and the segment table.
package io.elastikey.store.elastic.log;

import io.elastikey.store.StoreException;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The store's log: every put and delete is appended here first, and everything else (index,
 * memory tier) can be rebuilt from it.
 *
 * <p>Appends are serialized on this object. Durability follows {@link FsyncPolicy}: the caller
 * appends, then calls {@link #awaitDurable(long)} with the record's sequence number, outside any
 * lock, so that concurrent writers share fsyncs. A failed fsync fails the log for good: after one,
 * Linux may have dropped the dirty pages, so no later write could honestly be acknowledged.
 *
 * <p>The segment table is copy-on-write (segments change on roll-over and compaction only), so a
 * reader finds a segment with a binary search and no lock.
 *
 * <h2>Reused segment files</h2>
 * A segment compaction has emptied is not always deleted: up to {@value #MAX_RECYCLED} files are kept
 * ({@code NNNNNNNNNN.free}) and the next roll-over writes into one of them instead of a new file. Why: the pages of
 * a file just compacted are in the page cache, and a write over a cached page is a copy, where a write into a new
 * file first has the kernel find, zero and insert a page for every 4 KiB: on this project's VMs 6.4 GB/s against
 * 0.26-3 GB/s ({@code dd}), and a third of the RESP server's CPU under a million keys' SETs (docs/benchmarks.md).
 * Compaction frees segments in batches (a checkpoint deletes all that a pass moved: at 50,000 SETs of 4 KB a
 * second, some fifteen every few seconds), so up to {@value #MAX_RECYCLED} are kept, enough to feed the roll-overs
 * until the next batch; with two, most roll-overs under such a stream made new files, and every fsync of a growing
 * file also writes its inode. Kept files are disk the log was using a moment before; once the log stops rolling
 * over, {@link #trimRecycled} gives back all but {@value #MIN_RECYCLED}.
 * A reused file gets its new header and a zero record length before it is renamed into the log, so a crash at any
 * point leaves either a {@code .free} file (ignored) or a segment whose records end where the new ones do: the old
 * records after them fail the scan's checks, the last of which is that sequence numbers rise within a segment.
 * A segment that stops growing (roll-over, close) is cut to its records' end. Not done when lookups read past the
 * page cache ({@code directReads}): there the old pages are likely gone, and writing part of an uncached page of an
 * existing file makes the kernel read it first.
 */
public final class Log implements AutoCloseable {

    private final Path dir;
    private final int segmentSize;
    private final FsyncPolicy policy;
    /** Alignment of {@code O_DIRECT} record reads; 0 reads records through the page cache. */
    private final int directAlignment;
    private volatile Segment[] segments;

    // Guarded by this.
    private Segment active;
    private long sequence;
    private ByteBuffer writeBuffer = ByteBuffer.allocateDirect(64 << 10);
    /** {@code EVERYSEC}: segments filled since the last fsync, each with a reference held until it is fsynced. */
    private final List<Segment> sealedUnsynced = new ArrayList<>();
    private final CRC32C crc = new CRC32C();

    /** Reused files are written over only when their pages are likely cached; see the class comment. */
    private final boolean reuseFiles;
    /** Emptied segment files kept for reuse, oldest first; guarded by this. */
    private final ArrayDeque<Path> recycled = new ArrayDeque<>();

    /** Emptied segment files kept for reuse, at most: each holds a segment's worth of disk. */
    static final int MAX_RECYCLED = 16;
    /** Emptied segment files kept by {@link #trimRecycled} however few segments the log started since. */
    static final int MIN_RECYCLED = 2;
    /** Segments started since the last {@link #trimRecycled}; guarded by this. */
    private int startedSinceTrim;

    private final GroupCommit durability;
    private final LongAdder fsyncs = new LongAdder();
    private volatile StoreException failure;

    private Log(Path dir, int segmentSize, FsyncPolicy policy, int directAlignment, Segment[] segments,
                List<Path> recycled, int groupCommitMillis) {
        this.dir = dir;
        this.segmentSize = segmentSize;
        this.policy = policy;
        this.directAlignment = directAlignment;
        this.segments = segments;
        this.reuseFiles = directAlignment == 0;
        this.recycled.addAll(recycled);
        this.durability = new GroupCommit(new GroupCommit.Target() {
            @Override
            public long force() throws IOException {
                return forceActive();
            }

            @Override
            public void fail(StoreException e) {
                Log.this.fail(e);
            }

            @Override
            public StoreException failure() {
                return Log.this.failure();
            }
        }, policy, groupCommitMillis);
    }

    /**
     * Opens every segment file in {@code dir}, oldest first. Nothing is appended until
     * {@link #startAppending(long)}: recovery first decides where the valid log ends. With {@code directReads}
     * the records a lookup reads are read past the page cache ({@code O_DIRECT}) where the file system allows it,
     * so that lookups that miss memory leave no cached pages behind (in a memory cgroup the kernel charges those
     * to the process); writes, scans, recovery and compaction still go through the page cache.
     */
    public static Log open(Path dir, int segmentSize, FsyncPolicy policy, int groupCommitMillis, boolean directReads)
            throws IOException {
        int alignment = directReads ? SegmentChannels.directAlignment(dir) : 0;
        List<Segment> found = new ArrayList<>();
        List<Path> recycled = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String name = p.getFileName().toString();
                int id = RecordFormat.parseSegmentFileName(name);
                if (id >= 0) {
                    FileChannel ch = SegmentChannels.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    found.add(segment(id, p, ch, alignment, ch.size()));
                } else if (name.endsWith(".free")) {
                    if (recycled.size() < MIN_RECYCLED) { // how many a stream of writes needs is not known yet
                        recycled.add(p);
                    } else {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
        return new Log(dir, segmentSize, policy, alignment, found.toArray(new Segment[0]), recycled,
                groupCommitMillis);
    }

    /** A segment over {@code ch}, with an {@code O_DIRECT} reader beside it when asked and possible. */
    private static Segment segment(int id, Path path, FileChannel ch, int directAlignment, long size) {
        FileChannel direct = directAlignment > 0 ? SegmentChannels.openDirect(path) : null;
        return new Segment(id, path, ch, direct, direct != null ? directAlignment : 0, size);
    }

    /** Whether lookups read records past the page cache: asked for, and the file system allows it. */
    public boolean readsDirect() {
        Segment[] s = segments;
        return s.length > 0 && s[s.length - 1].directChannel() != null;
    }

    /** Segments oldest first; a snapshot. */
    public Segment[] segments() {
        return segments;
    }

    /**
     * The live segment whose id ends in these low {@code bits} bits, or null: for a table that keeps only part of a
     * segment id. Also null when two live segments could end in the same bits (their ids span 2^bits or more), so the
     * answer is never another segment than the one meant. Lock-free.
     */
    public Segment segmentEndingIn(int lowBits, int bits) {
        Segment[] s = segments;
        if (s.length == 0) {
            return null;
        }
        int newest = s[s.length - 1].id();
        int mask = (1 << bits) - 1;
        if (newest - s[0].id() > mask) {
            return null;
        }
        return segment(newest - ((newest - lowBits) & mask));
    }

    /** The segment with this id, or null when it no longer exists. Lock-free. */
    public Segment segment(int id) {
        Segment[] s = segments;
        int lo = 0;
        int hi = s.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int midId = s[mid].id();
            if (midId < id) {
                lo = mid + 1;
            } else if (midId > id) {
                hi = mid - 1;
            } else {
                return s[mid];
            }
        }
        return null;
    }

    /**
     * Makes the log writable: appends continue in the newest segment (after its valid end, which
     * recovery has truncated to) with sequence numbers after {@code lastSequence}.
     */
    public synchronized void startAppending(long lastSequence) throws IOException {
        this.sequence = lastSequence;
        Segment[] s = segments;
        active = s.length == 0 ? createSegment(1) : s[s.length - 1];
        durability.start(lastSequence);
    }

    /** Cuts a segment back to {@code size} bytes: used by recovery on a torn tail. */
    public void truncate(Segment segment, long size) throws IOException {
        segment.channel().truncate(size);
        segment.channel().force(true);
        segment.size(size);
    }

    /**
     * Appends one record and returns where it went. The caller owns the ordering between this and
     * its index update (it holds its own write lock across both).
     */
    public synchronized Appended append(byte type, byte[] key, byte[] value, int valueLength) {
        checkNotFailed();
        int length = RecordFormat.recordLength(key.length, valueLength);
        try {
            rollOverUnlessRoomFor(length);
            writeBufferFor(length);
            Appended a = stage(type, key, value, valueLength, length, 0, 0);
            writeStaged(1);
            return a;
        } catch (IOException e) {
            throw appendFailed(e);
        }
    }

    /**
     * Appends puts {@code from} (inclusive) to {@code to} of {@code entries} in order, with one write per
     * {@link #BATCH_WRITE_BYTES} or per segment rather than one per record: a write system call costs about as much
     * as copying a 4 KB record, and a batch leaves fewer partly written pages for the file system to zero. Where
     * record {@code i} went is in {@code out[i]}; when a write fails, the records before it are in the log (their
     * {@code out} entries set: the caller indexes them) and the exception says why the others are not.
     */
    public synchronized void appendPuts(List<? extends Map.Entry<byte[], byte[]>> entries, int from, int to,
                                        Appended[] out) {
        checkNotFailed();
        int staged = 0;
        int stagedBytes = 0;
        int i = from;
        try {
            for (; i < to; i++) {
                byte[] key = entries.get(i).getKey();
                byte[] value = entries.get(i).getValue();
                int length = RecordFormat.recordLength(key.length, value.length);
                if (staged > 0 && (stagedBytes + length > BATCH_WRITE_BYTES
                        || active.size() + stagedBytes + length > segmentSize)) {
                    writeStaged(staged);
                    staged = 0;
                    stagedBytes = 0;
                }
                if (staged == 0) {
                    rollOverUnlessRoomFor(length);
                    writeBufferFor(Math.max(length, BATCH_WRITE_BYTES));
                }
                out[i] = stage(RecordFormat.TYPE_PUT, key, value, value.length, length, staged, stagedBytes);
                staged++;
                stagedBytes += length;
            }
            if (staged > 0) {
                writeStaged(staged);
            }
        } catch (IOException e) {
            Arrays.fill(out, i - staged, i, null); // staged, never written: not in the log
            throw appendFailed(e);
        }
    }

    /** Bytes a batch gathers before it writes them: large enough to amortize the call, small enough to cache. */
    static final int BATCH_WRITE_BYTES = 256 << 10;

    private void checkNotFailed() {
        StoreException f = failure;
        if (f != null) {
            throw new StoreException("log is failed after an earlier I/O error; reopen the store", f);
        }
    }

    private void rollOverUnlessRoomFor(int length) throws IOException {
        if (active.size() + length > segmentSize && active.size() > RecordFormat.SEGMENT_HEADER_SIZE) {
            rollOver();
        }
    }

    /**
     * Encodes a record after {@code staged} others ({@code stagedBytes} long) in the write buffer; returns where it
     * will be once {@link #writeStaged} has written them.
     */
    private Appended stage(byte type, byte[] key, byte[] value, int valueLength, int length, int staged,
                           int stagedBytes) {
        long seq = sequence + staged + 1;
        RecordFormat.encode(writeBuffer, crc, type, seq, key, value, valueLength);
        return new Appended(active.id(), (int) (active.size() + stagedBytes), length, seq);
    }

    /**
     * Writes the staged records at the active segment's end. Only once the write is whole do the sequence and the
     * end move. After a failure nothing of them was acknowledged, and none may come back: a write cut short (a full
     * disk) can leave whole records of a batch in the file, which recovery would replay, so the file is cut back to
     * its end; should even that fail, the next append overwrites them.
     */
    private void writeStaged(int records) throws IOException {
        ByteBuffer buf = writeBuffer.flip();
        long offset = active.size();
        int bytes = buf.remaining();
        try {
            writeFully(active.channel(), buf, offset);
        } catch (IOException e) {
            try {
                active.channel().truncate(offset);
            } catch (IOException cut) {
                e.addSuppressed(cut);
            }
            throw e;
        }
        writeBuffer.clear();
        sequence += records;
        active.size(offset + bytes);
        durability.written(sequence);
    }

    private StoreException appendFailed(IOException e) {
        writeBuffer.clear();
        return new StoreException("cannot append to " + active + ": " + e.getMessage(), e);
    }

    /** Blocks until the record with this sequence number is as durable as the policy promises. */
    public void awaitDurable(long seq) {
        durability.await(seq);
    }

    /**
     * Never blocks: runs {@code then} once the record with this sequence number is as durable as the policy promises
     * (with null), or the log failed (with the failure); see {@link GroupCommit#whenDurable}.
     */
    public void whenDurable(long seq, Consumer<RuntimeException> then) {
        durability.whenDurable(seq, then);
    }

    /** Fsyncs of the active segment so far (group commits; roll-overs not counted). */
    public long fsyncs() {
        return fsyncs.sum();
    }

    /** The newest sequence number appended. */
    public synchronized long lastSequence() {
        return sequence;
    }

    /** Where the next record will go: the checkpoint position. */
    public synchronized Position endPosition() {
        return new Position(active.id(), active.size(), sequence);
    }

    /** Fsyncs every appended record now, whatever the policy. */
    public void syncAll() {
        durability.syncTo(lastSequence());
    }

    /**
     * Fsync of the active segment, used by {@link GroupCommit}; returns the sequence it covers. Under
     * {@code EVERYSEC} also of the segments filled since the last one, and of the directory, which holds their
     * successors' names.
     */
    long forceActive() throws IOException {
        fsyncs.increment();
        Segment s;
        long seq;
        List<Segment> sealed;
        synchronized (this) {
            s = active;
            seq = sequence;
            sealed = sealedUnsynced.isEmpty() ? List.of() : new ArrayList<>(sealedUnsynced);
            sealedUnsynced.clear();
        }
        try {
            for (Segment full : sealed) {
                full.channel().force(false);
            }
        } finally {
            sealed.forEach(Segment::release);
        }
        s.channel().force(false);
        if (!sealed.isEmpty()) {
            DirectorySync.sync(dir);
        }
        return seq;
    }

    void fail(StoreException e) {
        failure = e;
    }

    StoreException failure() {
        return failure;
    }

    /**
     * Removes a segment from the table, then keeps its file for reuse (see the class comment) or deletes it. Readers
     * holding it finish their read through the still-open channel; a file a reader still holds is deleted, never
     * reused, since a reused file is written over. A deletion happens outside the appenders' monitor: unlinking
     * 64 MB of extents is file-system work no append should wait for.
     */
    public void removeSegment(Segment segment) throws IOException {
        synchronized (this) {
            if (segment == active) {
                throw new IllegalStateException("cannot remove the active " + segment);
            }
            Segment[] s = segments;
            segments = Arrays.stream(s).filter(x -> x != segment).toArray(Segment[]::new);
        }
        segment.retire();
        if (reuseFiles && segment.isClosed() && keepForReuse(segment)) {
            return;
        }
        Files.deleteIfExists(segment.path());
    }

    /**
     * Renames an emptied segment's file to {@code NNNNNNNNNN.free} when fewer than the most are kept. Under the
     * monitor, so two removals cannot both take the last place; a rename is one metadata update, not an unlink.
     */
    private synchronized boolean keepForReuse(Segment segment) {
        if (recycled.size() >= MAX_RECYCLED) {
            return false;
        }
        Path kept = dir.resolve(RecordFormat.recycledFileName(segment.id()));
        try {
            Files.move(segment.path(), kept, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            return false; // deleted instead
        }
        recycled.addLast(kept);
        return true;
    }

    /** Emptied segment files kept for reuse now. */
    public synchronized int recycledFiles() {
        return recycled.size();
    }

    /** The active segment: the only one that grows. */
    public synchronized Segment active() {
        return active;
    }

    public Path directory() {
        return dir;
    }

    @Override
    public void close() {
        durability.close();
        synchronized (this) { // left by a failed log's last fsync
            sealedUnsynced.forEach(Segment::release);
            sealedUnsynced.clear();
            if (active != null) {
                try {
                    cutToRecords(active);
                } catch (IOException e) {
                    // The next open's scan finds the records' end all the same.
                }
            }
        }
        for (Segment s : segments) {
            s.retire();
        }
    }

    /**
     * Starts the next segment. Under the waiting policies the full one is fsynced first, by the writer; under
     * {@code EVERYSEC} it is left, with a reference held, to the next background fsync ({@link #forceActive}), so a
     * writer never waits for a second's worth of dirty pages.
     */
    private void rollOver() throws IOException {
        cutToRecords(active);
        if (policy.waitsForFsync()) {
            active.channel().force(false);
        } else if (policy == FsyncPolicy.EVERYSEC && active.acquire()) {
            sealedUnsynced.add(active);
        }
        active = createSegment(active.id() + 1);
        startedSinceTrim++;
    }

    /**
     * Deletes the oldest kept files beyond what the log used since the last call (at least {@value #MIN_RECYCLED}
     * are kept): called once per checkpoint interval, so files kept for a stream of overwrites that has stopped
     * go back to the file system. Deleted outside the monitor, like {@link #removeSegment}'s.
     */
    public void trimRecycled() throws IOException {
        List<Path> surplus = new ArrayList<>();
        synchronized (this) {
            int keep = Math.max(MIN_RECYCLED, startedSinceTrim);
            startedSinceTrim = 0;
            while (recycled.size() > keep) {
                surplus.add(recycled.pollFirst());
            }
        }
        for (Path p : surplus) {
            Files.deleteIfExists(p);
        }
    }

    /**
     * Creates segment {@code id} with its header, in a reused file when one is kept. When that fails (a full disk can
     * create the file but not write its header) the file is removed again: left behind, it would make every later
     * roll-over fail on {@code CREATE_NEW}, so the log would refuse writes for good even once space was freed.
     */
    private Segment createSegment(int id) throws IOException {
        Path path = dir.resolve(RecordFormat.segmentFileName(id));
        FileChannel ch = reuseFile(path, id);
        if (ch == null) {
            ch = SegmentChannels.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            try {
                writeHeader(ch, id, false);
            } catch (IOException | RuntimeException e) {
                try {
                    ch.close();
                    Files.deleteIfExists(path);
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
        }
        Segment seg = segment(id, path, ch, directAlignment, RecordFormat.SEGMENT_HEADER_SIZE);
        Segment[] s = segments;
        Segment[] grown = Arrays.copyOf(s, s.length + 1);
        grown[s.length] = seg;
        segments = grown;
        return seg;
    }

    /**
     * A kept file made segment {@code id} at {@code path}: its new header and a zero record length written first,
     * then renamed into the log. Null when none is kept, or when reusing it fails (it is deleted then).
     */
    private FileChannel reuseFile(Path path, int id) {
        Path kept = recycled.pollFirst();
        if (kept == null) {
            return null;
        }
        FileChannel ch = null;
        try {
            ch = SegmentChannels.open(kept, StandardOpenOption.READ, StandardOpenOption.WRITE);
            writeHeader(ch, id, true);
            Files.move(kept, path, StandardCopyOption.ATOMIC_MOVE);
            if (policy.waitsForFsync()) {
                DirectorySync.sync(dir);
            }
            return ch;
        } catch (IOException | RuntimeException e) {
            try {
                if (ch != null) {
                    ch.close();
                }
                Files.deleteIfExists(kept);
            } catch (IOException ignored) {
                // A file left behind is picked up, or deleted, by the next open.
            }
            return null;
        }
    }

    /**
     * Writes segment {@code id}'s header; for a reused file also a zero record length after it, so that nothing
     * of the file's old contents reads as this segment's first record.
     */
    private void writeHeader(FileChannel ch, int id, boolean reused) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(RecordFormat.SEGMENT_HEADER_SIZE + (reused ? 8 : 0));
        RecordFormat.encodeSegmentHeader(header, id);
        header.clear();
        writeFully(ch, header, 0);
        if (policy.waitsForFsync()) {
            ch.force(true);
            if (!reused) {
                DirectorySync.sync(dir);
            }
        }
    }

    /** Cuts a segment that stops growing to the end of its records, if its file (a reused one) is longer. */
    private static void cutToRecords(Segment segment) throws IOException {
        if (segment.channel().size() > segment.size()) {
            segment.channel().truncate(segment.size());
        }
    }

    /** An empty write buffer with room for {@code length} bytes. */
    private void writeBufferFor(int length) {
        if (writeBuffer.capacity() < length) {
            writeBuffer = ByteBuffer.allocateDirect(Math.max(length, writeBuffer.capacity() * 2));
        }
        writeBuffer.clear();
    }

    static void writeFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            pos += ch.write(buf, pos);
        }
    }

    /** Where a record was appended. */
    public record Appended(int segmentId, int offset, int length, long sequence) {
    }

    /** A point in the log: the end of the valid records. */
    public record Position(int segmentId, long offset, long sequence) {
    }
}
