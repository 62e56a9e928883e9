// ElasticStoreConfig -- the validated settings of one ElasticStore.
package io.elastikey.store.elastic;

import io.elastikey.store.KeyValueStore;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Immutable settings for {@link ElasticStore}, built with {@link #builder(Path)} and changed with
 * {@link #mutate()}. {@link Builder#build()} fails fast on a bad value and names it; nothing is
 * silently clamped.
 */
public final class ElasticStoreConfig {

    private final Path directory;
    private final long memoryBudgetBytes;
    private final ResidencyPolicy residencyPolicy;
    private final FsyncPolicy fsyncPolicy;
    private final int groupCommitIntervalMillis;
    private final int segmentSizeBytes;
    private final int maxKeySize;
    private final int maxValueSize;
    private final long indexCapacity;
    private final int averageKeySize;
    private final int averageValueSize;
    private final double compactionGarbageRatio;
    private final int compactionIntervalMillis;
    private final int checkpointIntervalMillis;
    private final boolean recordLatency;
    private final boolean directReads;
    private final double resizeDutyCycle;
    private final boolean loadOnOpen;
    private final boolean locationTable;
    private final boolean resizeIdlePriority;

    private ElasticStoreConfig(Builder b) {
        this.directory = b.directory;
        this.memoryBudgetBytes = b.memoryBudgetBytes;
        this.residencyPolicy = b.residencyPolicy;
        this.fsyncPolicy = b.fsyncPolicy;
        this.groupCommitIntervalMillis = b.groupCommitIntervalMillis;
        this.segmentSizeBytes = b.segmentSizeBytes;
        this.maxKeySize = b.maxKeySize;
        this.maxValueSize = b.maxValueSize;
        this.indexCapacity = b.indexCapacity;
        this.averageKeySize = b.averageKeySize;
        this.averageValueSize = b.averageValueSize;
        this.compactionGarbageRatio = b.compactionGarbageRatio;
        this.compactionIntervalMillis = b.compactionIntervalMillis;
        this.checkpointIntervalMillis = b.checkpointIntervalMillis;
        this.recordLatency = b.recordLatency;
        this.directReads = b.directReads;
        this.resizeDutyCycle = b.resizeDutyCycle;
        this.loadOnOpen = b.loadOnOpen;
        this.locationTable = b.locationTable;
        this.resizeIdlePriority = b.resizeIdlePriority;
    }

    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    /** A builder holding this configuration's values. */
    public Builder mutate() {
        Builder b = new Builder(directory);
        b.memoryBudgetBytes = memoryBudgetBytes;
        b.residencyPolicy = residencyPolicy;
        b.fsyncPolicy = fsyncPolicy;
        b.groupCommitIntervalMillis = groupCommitIntervalMillis;
        b.segmentSizeBytes = segmentSizeBytes;
        b.maxKeySize = maxKeySize;
        b.maxValueSize = maxValueSize;
        b.indexCapacity = indexCapacity;
        b.averageKeySize = averageKeySize;
        b.averageValueSize = averageValueSize;
        b.compactionGarbageRatio = compactionGarbageRatio;
        b.compactionIntervalMillis = compactionIntervalMillis;
        b.checkpointIntervalMillis = checkpointIntervalMillis;
        b.recordLatency = recordLatency;
        b.directReads = directReads;
        b.resizeDutyCycle = resizeDutyCycle;
        b.loadOnOpen = loadOnOpen;
        b.locationTable = locationTable;
        b.resizeIdlePriority = resizeIdlePriority;
        return b;
    }

    public Path directory() { return directory; }
    public long memoryBudgetBytes() { return memoryBudgetBytes; }
    public ResidencyPolicy residencyPolicy() { return residencyPolicy; }
    public FsyncPolicy fsyncPolicy() { return fsyncPolicy; }
    public int groupCommitIntervalMillis() { return groupCommitIntervalMillis; }
    public int segmentSizeBytes() { return segmentSizeBytes; }
    public int maxKeySize() { return maxKeySize; }
    public int maxValueSize() { return maxValueSize; }
    public long indexCapacity() { return indexCapacity; }
    public int averageKeySize() { return averageKeySize; }
    public int averageValueSize() { return averageValueSize; }
    public double compactionGarbageRatio() { return compactionGarbageRatio; }
    public int compactionIntervalMillis() { return compactionIntervalMillis; }
    public int checkpointIntervalMillis() { return checkpointIntervalMillis; }
    public boolean recordLatency() { return recordLatency; }
    public boolean directReads() { return directReads; }
    public double resizeDutyCycle() { return resizeDutyCycle; }
    public boolean loadOnOpen() { return loadOnOpen; }
    public boolean locationTable() { return locationTable; }
    public boolean resizeIdlePriority() { return resizeIdlePriority; }

    @Override
    public String toString() {
        return "ElasticStoreConfig{directory=" + directory + ", memoryBudgetBytes=" + memoryBudgetBytes
                + ", residencyPolicy=" + residencyPolicy + ", fsyncPolicy=" + fsyncPolicy
                + ", groupCommitIntervalMillis=" + groupCommitIntervalMillis
                + ", segmentSizeBytes=" + segmentSizeBytes + ", maxKeySize=" + maxKeySize
                + ", maxValueSize=" + maxValueSize + ", indexCapacity=" + indexCapacity
                + ", averageKeySize=" + averageKeySize + ", averageValueSize=" + averageValueSize
                + ", compactionGarbageRatio=" + compactionGarbageRatio
                + ", compactionIntervalMillis=" + compactionIntervalMillis
                + ", checkpointIntervalMillis=" + checkpointIntervalMillis
                + ", resizeDutyCycle=" + resizeDutyCycle + ", loadOnOpen=" + loadOnOpen
                + ", locationTable=" + locationTable
                + ", resizeIdlePriority=" + resizeIdlePriority + ", directReads=" + directReads + "}";
    }

    /** Defaults work for a million 4 KB keys; every setter's javadoc gives its default. */
    public static final class Builder {
        private final Path directory;
        private long memoryBudgetBytes = 64L << 20;
        private ResidencyPolicy residencyPolicy = ResidencyPolicy.FREQUENCY;
        private FsyncPolicy fsyncPolicy = FsyncPolicy.GROUP;
        private int groupCommitIntervalMillis = 0;
        private int segmentSizeBytes = 64 << 20;
        private int maxKeySize = 1024;
        private int maxValueSize = KeyValueStore.DEFAULT_MAX_VALUE_SIZE;
        private long indexCapacity = 1 << 20;
        private int averageKeySize = 32;
        private int averageValueSize = 4096;
        private double compactionGarbageRatio = 0.5;
        private int compactionIntervalMillis = 5_000;
        private int checkpointIntervalMillis = 10_000;
        private boolean recordLatency = true;
        private boolean directReads = false;
        private double resizeDutyCycle = 0.5;
        private boolean loadOnOpen = true;
        private boolean locationTable = true;
        private boolean resizeIdlePriority = true;

        private Builder(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /** Bytes the in-memory tier may use; 0 keeps everything on disk. Default 64 MiB. */
        public Builder memoryBudgetBytes(long v) { memoryBudgetBytes = v; return this; }

        /** Default {@link ResidencyPolicy#FREQUENCY}. */
        public Builder residencyPolicy(ResidencyPolicy v) { residencyPolicy = v; return this; }

        /** Default {@link FsyncPolicy#GROUP}. */
        public Builder fsyncPolicy(FsyncPolicy v) { fsyncPolicy = v; return this; }

        /**
         * {@link FsyncPolicy#GROUP}: the least time between the starts of two fsyncs, 0 to 1000 ms; a batch
         * gathers that long at most. Default 0: an fsync starts as soon as the previous one ends (or at once
         * when none is running), so a lone writer never waits for an interval.
         */
        public Builder groupCommitIntervalMillis(int v) { groupCommitIntervalMillis = v; return this; }

        /** A log segment rolls over past this size, 64 KiB to 1 GiB. Default 64 MiB. */
        public Builder segmentSizeBytes(int v) { segmentSizeBytes = v; return this; }

        /** Largest key, 1 to 65535 bytes. Default 1024. */
        public Builder maxKeySize(int v) { maxKeySize = v; return this; }

        /** Largest value, up to 256 MiB. Default 1 MiB. */
        public Builder maxValueSize(int v) { maxValueSize = v; return this; }

        /**
         * Keys the persisted index is laid out for. It grows past this (up to 8x, more slowly as it
         * bloats); a store expected to hold more should say so here. Default 1,048,576.
         */
        public Builder indexCapacity(long v) { indexCapacity = v; return this; }

        /** Sizing hint for the index and memory tier. Default 32 bytes. */
        public Builder averageKeySize(int v) { averageKeySize = v; return this; }

        /** Sizing hint for the memory tier. Default 4096 bytes. */
        public Builder averageValueSize(int v) { averageValueSize = v; return this; }

        /** A sealed segment is compacted once this fraction of it is garbage, 0.05 to 0.95. Default 0.5. */
        public Builder compactionGarbageRatio(double v) { compactionGarbageRatio = v; return this; }

        /** How often the compactor looks for work; 0 disables background compaction. Default 5 s. */
        public Builder compactionIntervalMillis(int v) { compactionIntervalMillis = v; return this; }

        /** How often the index is checkpointed (bounds replay on restart); 0 only on close. Default 10 s. */
        public Builder checkpointIntervalMillis(int v) { checkpointIntervalMillis = v; return this; }

        /** Whether lookups are timed into the latency histogram. Default true. */
        public Builder recordLatency(boolean v) { recordLatency = v; return this; }

        /**
         * The share of time a resize works while lookups are running, in (0, 1]: after each
         * millisecond of work during which lookups ran it pauses for (1 - d) / d of that. With no
         * lookups it runs flat out; 1 never pauses. Default 0.5.
         */
        public Builder resizeDutyCycle(double v) { resizeDutyCycle = v; return this; }

        /**
         * Whether opening the store fills the memory tier from disk (in the background, as a resize does), or starts
         * it empty and lets misses admit. False suits a store behind a cache of its own, such as the key server's
         * parsed keys: there the fill would walk the whole index, paced against the lookups, for a tier the cache in
         * front leaves few reads to. Default true.
         */
        public Builder loadOnOpen(boolean v) { loadOnOpen = v; return this; }

        /**
         * Whether lookups that miss the memory tier find their record through a copy of the index's locations in
         * native memory (16 bytes a slot, some 32 bytes per index entry: 32 MiB at a million entries) rather than a
         * Chronicle Map query (docs/store.md, "Finding a record on disk: the location table"). False suits a store
         * behind a cache of its own, as for {@link #loadOnOpen}: the key server's parsed-key cache leaves the store
         * few lookups, and its several index entries per key would make the table 128 MiB at a million keys. A store
         * that reads past the page cache ({@link #directReads}, the default under a memory limit) has none either
         * way. Default true.
         */
        public Builder locationTable(boolean v) { locationTable = v; return this; }

        /**
         * Whether the resizer's thread runs at the operating system's idle priority (Linux {@code SCHED_IDLE}): it
         * then gets a core only when no thread of normal priority wants one, and a lookup that wakes up takes the
         * core from it at once instead of waiting for the scheduler's next tick. On by default; where the call is
         * not possible the thread keeps its priority and the store logs it once (docs/store.md).
         */
        public Builder resizeIdlePriority(boolean v) { resizeIdlePriority = v; return this; }

        /**
         * Whether a lookup that misses memory reads its record past the page cache ({@code O_DIRECT}, where the
         * file system allows it). Off by default: with memory to spare the page cache is a free second tier. On
         * under a memory limit: there the kernel charges every page a read leaves behind to the process, and
         * reclaims them on the next reads, which costs more CPU than the read (docs/store.md).
         */
        public Builder directReads(boolean v) { directReads = v; return this; }

        public ElasticStoreConfig build() {
            require(memoryBudgetBytes >= 0, "memoryBudgetBytes must be >= 0, was " + memoryBudgetBytes);
            Objects.requireNonNull(residencyPolicy, "residencyPolicy");
            Objects.requireNonNull(fsyncPolicy, "fsyncPolicy");
            require(groupCommitIntervalMillis >= 0 && groupCommitIntervalMillis <= 1000,
                    "groupCommitIntervalMillis must be in [0, 1000], was " + groupCommitIntervalMillis);
            require(segmentSizeBytes >= (64 << 10) && segmentSizeBytes <= (1 << 30),
                    "segmentSizeBytes must be in [64 KiB, 1 GiB], was " + segmentSizeBytes);
            require(maxKeySize >= 1 && maxKeySize <= 65535, "maxKeySize must be in [1, 65535], was " + maxKeySize);
            require(maxValueSize >= 0 && maxValueSize <= (256 << 20),
                    "maxValueSize must be in [0, 256 MiB], was " + maxValueSize);
            require(indexCapacity >= 1024 && indexCapacity <= (1L << 34),
                    "indexCapacity must be in [1024, 2^34], was " + indexCapacity);
            require(averageKeySize >= 1 && averageKeySize <= maxKeySize,
                    "averageKeySize must be in [1, maxKeySize], was " + averageKeySize);
            require(averageValueSize >= 1, "averageValueSize must be >= 1, was " + averageValueSize);
            require(compactionGarbageRatio >= 0.05 && compactionGarbageRatio <= 0.95,
                    "compactionGarbageRatio must be in [0.05, 0.95], was " + compactionGarbageRatio);
            require(compactionIntervalMillis >= 0, "compactionIntervalMillis must be >= 0");
            require(checkpointIntervalMillis >= 0, "checkpointIntervalMillis must be >= 0");
            require(resizeDutyCycle > 0 && resizeDutyCycle <= 1,
                    "resizeDutyCycle must be in (0, 1], was " + resizeDutyCycle);
            return new ElasticStoreConfig(this);
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
