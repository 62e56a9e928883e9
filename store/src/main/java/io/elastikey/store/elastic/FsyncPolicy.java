// FsyncPolicy -- when a write to the log counts as done.
package io.elastikey.store.elastic;

/** How long {@code put} and {@code delete} wait before returning, and when the log reaches the disk. */
public enum FsyncPolicy {
    /** Each write is fsynced before it returns; concurrent writers share one fsync (group commit). */
    ALWAYS,
    /**
     * Group commit: a write returns once an fsync that began after it has completed. With no fsync
     * running the writer's own starts at once; writers arriving during one share the next. Nothing
     * acknowledged is lost. {@link ElasticStoreConfig#groupCommitIntervalMillis()} (0 by default) can
     * space fsyncs out for a slow disk.
     */
    GROUP,
    /**
     * Writes return once in the OS page cache, as under {@link #NEVER}, and a background thread fsyncs the log once
     * a second: a killed process loses nothing, a power cut at most about the last second of writes. What Redis
     * calls {@code appendfsync everysec}, for those who trade that second for not waiting on the disk.
     */
    EVERYSEC,
    /** Writes return once in the OS page cache: they survive a killed process, not a power cut. */
    NEVER;

    /** Whether a write waits for an fsync that covers it before it returns. */
    public boolean waitsForFsync() {
        return this == ALWAYS || this == GROUP;
    }
}
