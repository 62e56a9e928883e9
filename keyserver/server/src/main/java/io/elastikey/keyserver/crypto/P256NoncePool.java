// P256NoncePool -- keeps ECDSA P-256 nonces precomputed at idle priority for P256Native (native/src/p256_nonces.c).
package io.elastikey.keyserver.crypto;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the filler thread of the native nonce pool: nine tenths of a P-256 signature is its nonce (a random k, the
 * point k*G, k's inverse), which depends on neither key nor message, so a thread the kernel runs only on an otherwise
 * idle core ({@code SCHED_IDLE}) makes nonces ahead and a signature on the request path is left with the rest, under a
 * microsecond instead of some 19 µs. Under full load the pool runs dry and signatures make their own nonces, as
 * without it: the pool moves work into idle time, it adds none. {@code native/src/p256_nonces.c} says how nonces are
 * kept secret and used once.
 *
 * <p>One pool per process, shared by every key server in it (tests run several): each {@link #acquire} is paired
 * with a {@link Handle#close()}, and the filler stops when the last one is closed.
 */
public final class P256NoncePool {
    private static final Logger log = LoggerFactory.getLogger(P256NoncePool.class);
    private static final String THREAD_NAME = "elastikey-p256-nonces";

    private static int users;
    private static Thread filler;

    private P256NoncePool() {
    }

    /** Counters since the process started: pairs made, taken by signatures, signatures that found none; pooled now. */
    public record Stats(long made, long taken, long missed, long pooled) {
        static final Stats NONE = new Stats(0, 0, 0, 0);
    }

    /** A user's claim on the pool; closing it stops the filler when no other user remains. Idempotent. */
    public interface Handle extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Starts the filler, keeping {@code target} nonces ready, unless it runs already (then the first user's target
     * stays). The native library must be loaded ({@link P256Native#load()}).
     */
    static synchronized Handle acquire(int target) {
        if (users++ == 0) {
            int effective = P256Native.openNoncePool(target);
            filler = new Thread(P256NoncePool::fill, THREAD_NAME);
            filler.setDaemon(true);
            filler.start();
            log.debug("P-256 nonce pool: keeping {} nonces ready", effective);
        }
        return new Handle() {
            private boolean closed;

            @Override
            public void close() {
                synchronized (P256NoncePool.class) {
                    if (!closed) {
                        closed = true;
                        release();
                    }
                }
            }
        };
    }

    /** The pool's counters, or zeros when the native library is not loaded. */
    static Stats stats() {
        long[] values = new long[4];
        P256Native.noncePoolStats(values);
        return new Stats(values[0], values[1], values[2], values[3]);
    }

    private static void release() {
        if (--users > 0) {
            return;
        }
        P256Native.closeNoncePool();
        boolean interrupted = false;
        while (filler.isAlive()) {
            try {
                filler.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        filler = null;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void fill() {
        int priority = P256Native.fillNoncePool();
        if (priority == 0) {
            log.warn("P-256 nonce pool ran at normal priority (neither SCHED_IDLE nor nice 19 could be set)");
        }
    }
}
