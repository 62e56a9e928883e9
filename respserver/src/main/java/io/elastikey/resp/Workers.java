// Workers -- the two thread pools store calls run on: a small one for reads, a large one for writes.
package io.elastikey.resp;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Reads (GET, MGET, EXISTS, ...) take microseconds from memory or one positional disk read: a pool
 * about the size of the machine keeps its threads busy and avoids waking a parked thread per
 * request. Writes park until their group fsync: a pool that large connections can fill, so one
 * connection's fsync never holds up another's. A connection has at most one task in either pool
 * at a time (see {@link RespDispatcher}), so the queues are bounded by the connection limit.
 */
final class Workers {
    final ExecutorService reads;
    final int readThreads;
    final ExecutorService writes;

    Workers(int readThreads, int writeThreads) {
        this.readThreads = readThreads;
        reads = pool(readThreads, "resp-read");
        writes = pool(writeThreads, "resp-write");
    }

    private static ExecutorService pool(int threads, String name) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new DefaultThreadFactory(name, true));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Lets running commands finish, for up to {@code seconds}. */
    void shutdown(long seconds) {
        reads.shutdown();
        writes.shutdown();
        try {
            reads.awaitTermination(seconds, TimeUnit.SECONDS);
            writes.awaitTermination(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
