// FsyncPolicy -- when a write to the log counts as done.
package io.elastikey.store.elastic;

/** How long {@code put} and {@code delete} wait before returning. */
public enum FsyncPolicy {
    /** Each write is fsynced before it returns; concurrent writers share one fsync. */
    ALWAYS,
    /**
     * Writes return after the next group fsync, which runs every
     * {@link ElasticStoreConfig#groupCommitIntervalMillis()}: nothing acknowledged is lost, and many
     * writers share one fsync.
     */
    GROUP,
    /** Writes return once in the OS page cache: they survive a killed process, not a power cut. */
    NEVER
}
