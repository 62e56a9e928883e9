// RespLimits -- the validated bounds of one RespServer: request sizes, connections, idle time, worker threads.
package io.elastikey.resp;

import java.time.Duration;

/**
 * How much a client may ask of a {@link RespServer}. {@link #validate()} fails fast on a bad value
 * and names it; nothing is clamped.
 *
 * @param maxBulkBytes the largest bulk string in a request (normally the store's largest value)
 * @param maxArrayLength the most elements in one command (MGET/DEL/EXISTS keys plus the name)
 * @param maxRequestBytes the most bytes of bulk strings in one command, all elements together
 * @param maxInlineBytes the longest line: an inline command or a type line ({@code *3}, {@code $5})
 * @param maxPipelined requests read but not yet answered before the connection stops reading
 * @param maxConnections connections open at once; more are closed on accept
 * @param idleTimeout a connection with no read or write for this long is closed (zero: never)
 * @param readThreads threads that run reading commands (a disk read may block them)
 * @param workerThreads threads that run writing commands other than plain SETs (they park until their fsync)
 */
public record RespLimits(int maxBulkBytes, int maxArrayLength, long maxRequestBytes, int maxInlineBytes,
                         int maxPipelined, int maxConnections, Duration idleTimeout, int readThreads,
                         int workerThreads) {

    /** Defaults for a store whose largest value is {@code maxValueSize}. */
    public static RespLimits defaults(int maxValueSize) {
        return new RespLimits(maxValueSize, 65_536, 64L << 20, 64 * 1024, 1024, 10_000,
                Duration.ofMinutes(5),
                halfTheCpus(), 64);
    }

    /**
     * Half the CPUs, at least one: the default number of read threads and of event loops. Measured on
     * two cores shared with the load generator, one of each beat two of each by about 1.5x: fewer
     * threads to wake and schedule. Reads that mostly go to disk want more ({@code --read-workers}).
     */
    public static int halfTheCpus() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    /**
     * Read threads when lookups that miss memory read the disk past the page cache: each such read blocks its
     * thread for a device round trip, so the pool is what keeps several reads in flight. Measured on 2 vCPUs with
     * 2,000,000 values of 4 KiB and a 1 GiB cgroup (docs/benchmarks.md, "Past RAM"), redis-benchmark GETs over all
     * keys (96% from disk): 6,686/s with one read thread; 12,408/s with 8, 11,474/s with 16, 12,929-13,492/s with 32.
     */
    public static final int DISK_READ_THREADS = 8;

    public RespLimits withMaxConnections(int v) {
        return new RespLimits(maxBulkBytes, maxArrayLength, maxRequestBytes, maxInlineBytes, maxPipelined, v,
                idleTimeout, readThreads, workerThreads);
    }

    public RespLimits withIdleTimeout(Duration v) {
        return new RespLimits(maxBulkBytes, maxArrayLength, maxRequestBytes, maxInlineBytes, maxPipelined,
                maxConnections, v, readThreads, workerThreads);
    }

    public RespLimits withWorkerThreads(int v) {
        return new RespLimits(maxBulkBytes, maxArrayLength, maxRequestBytes, maxInlineBytes, maxPipelined,
                maxConnections, idleTimeout, readThreads, v);
    }

    public RespLimits withReadThreads(int v) {
        return new RespLimits(maxBulkBytes, maxArrayLength, maxRequestBytes, maxInlineBytes, maxPipelined,
                maxConnections, idleTimeout, v, workerThreads);
    }

    public RespLimits withMaxArrayLength(int v) {
        return new RespLimits(maxBulkBytes, v, maxRequestBytes, maxInlineBytes, maxPipelined, maxConnections,
                idleTimeout, readThreads, workerThreads);
    }

    /** Returns this, or throws {@link IllegalArgumentException} naming the first bad value. */
    public RespLimits validate() {
        positive("maxBulkBytes", maxBulkBytes);
        positive("maxArrayLength", maxArrayLength);
        positive("maxRequestBytes", maxRequestBytes);
        positive("maxInlineBytes", maxInlineBytes);
        positive("maxPipelined", maxPipelined);
        positive("maxConnections", maxConnections);
        positive("readThreads", readThreads);
        positive("workerThreads", workerThreads);
        if (idleTimeout == null || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout must be >= 0, was " + idleTimeout);
        }
        return this;
    }

    private static void positive(String name, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + v);
        }
    }
}
