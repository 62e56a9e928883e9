// KeyWarmup -- a restarted key server is fast from its first second: exercise the hot path, then reload the hot keys.
package io.elastikey.keyserver.warmup;

import io.elastikey.keyserver.crypto.KeyOperation;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two things a fresh process lacks that a running one has.
 *
 * <p><b>Compiled code.</b> {@link #exercise} runs the lookup-and-sign path (store read, unseal, parse, signature)
 * on a few stored keys for a short time before {@code /readyz} says ready, so the JIT has compiled it before the
 * first client arrives rather than while clients wait. Its keys are found with the cache bypassed on purpose: the
 * miss path is the one a restarted server runs most.
 *
 * <p><b>Parsed keys.</b> {@link #reload} loads the keys of the {@link HotKeyFile} (what the last run held, hottest
 * first) into the parsed-key cache on a background thread while the server already serves: a key a client asks for
 * meanwhile is loaded by its request as usual, so nothing waits for the reload. It reads the store in batches
 * ({@link KeyRepository#preload}), which ElasticStore serves in the order of its log: a million keys read one by one
 * at random were minutes of disk seeks on a cold page cache (docs/benchmarks.md, "Key server at scale"). It takes at
 * most half of one core's CPU time ({@link #RELOAD_SHARE}; time waiting for the disk does not count): a million P-256
 * keys are some 15 s of CPU, so the reload ends within the first minute and leaves the rest to the requests.
 */
public final class KeyWarmup {
    private static final Logger log = LoggerFactory.getLogger(KeyWarmup.class);
    private static final int EXERCISE_KEYS = 32;
    /** Enough for C2 to compile the path (its thresholds are some 10,000 calls) with room to spare. */
    private static final int EXERCISE_OPERATIONS = 50_000;
    /** The share of one core's time the reload may take; it sleeps the rest. */
    static final double RELOAD_SHARE = 0.5;
    /**
     * Keys read per store pass: enough for the store to read a batch in log order (a pass over its files rather than
     * a random read per key), few enough that a pause follows within some 10 ms of CPU.
     */
    private static final int RELOAD_BATCH = 2048;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final KeyRepository repository;
    private final KeyOperation operation;
    private final AtomicLong reloaded = new AtomicLong();
    private volatile long toReload;

    public KeyWarmup(KeyRepository repository, KeyOperation operation) {
        this.repository = repository;
        this.operation = operation;
    }

    /**
     * Signs with up to 32 keys named in {@code identifiers} (or, when it names none, the first stored keys) until
     * {@code budget} has passed or 50,000 operations are done; returns the number of operations. Never throws: a key that fails is skipped.
     */
    public long exercise(List<String> identifiers, Duration budget) {
        if (budget.isZero()) {
            return 0;
        }
        List<String> names = exerciseKeys(identifiers);
        if (names.isEmpty()) {
            return 0;
        }
        long deadline = System.nanoTime() + budget.toNanos();
        long operations = 0;
        byte[] input = new byte[128];
        while (System.nanoTime() - deadline < 0 && operations < EXERCISE_OPERATIONS) {
            for (String name : names) {
                LoadedKey key = repository.findUncached(name);
                if (key != null && sign(key, name, input)) {
                    operations++;
                }
            }
        }
        log.info("warm-up: {} lookups and signatures with {} keys in {} ms", operations, names.size(),
                (System.nanoTime() - deadline + budget.toNanos()) / 1_000_000);
        return operations;
    }

    /** Starts loading {@code identifiers} into the parsed-key cache on a daemon thread; returns at once. */
    public Thread reload(List<String> identifiers) {
        toReload = identifiers.size();
        Thread thread = new Thread(() -> reloadAll(identifiers), "key-reload");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
        return thread;
    }

    /** Keys of the hot-key file loaded so far. */
    public long reloaded() {
        return reloaded.get();
    }

    /** Keys of the hot-key file this start set out to load. */
    public long toReload() {
        return toReload;
    }

    private void reloadAll(List<String> identifiers) {
        if (identifiers.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        long cached = 0;
        int reported = 0;
        for (int from = 0; from < identifiers.size(); from += RELOAD_BATCH) {
            List<String> batch = identifiers.subList(from, Math.min(identifiers.size(), from + RELOAD_BATCH));
            long cpuBefore = THREADS.getCurrentThreadCpuTime();
            int added;
            try {
                added = repository.preload(batch);
            } catch (RuntimeException e) {
                log.warn("reloading hot keys stopped: {}", e.toString());
                return;
            }
            cached += added;
            long done = reloaded.addAndGet(batch.size());
            if (done * 10 / identifiers.size() > reported || done == identifiers.size()) {
                reported = (int) (done * 10 / identifiers.size());
                log.info("reloading hot keys: {}/{} ({}%), {} cached, in {} ms", done, identifiers.size(),
                        done * 100 / identifiers.size(), cached, (System.nanoTime() - start) / 1_000_000);
            }
            if (added < batch.size() && repository.cacheStats().evictions() > 0) {
                log.info("reloading hot keys: the parsed-key cache is full after {} keys; the rest stay on disk",
                        cached);
                return;
            }
            if (!pause(THREADS.getCurrentThreadCpuTime() - cpuBefore)) {
                return;
            }
        }
    }

    /** Sleeps so that {@code busyNanos} of CPU is {@link #RELOAD_SHARE} of the time; false when interrupted. */
    private static boolean pause(long busyNanos) {
        try {
            TimeUnit.NANOSECONDS.sleep((long) (busyNanos * (1 - RELOAD_SHARE) / RELOAD_SHARE));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private List<String> exerciseKeys(List<String> identifiers) {
        List<String> names = new ArrayList<>(identifiers.subList(0, Math.min(EXERCISE_KEYS, identifiers.size())));
        if (names.isEmpty()) {
            repository.forEachKey(summary -> {
                names.add(summary.keyId());
                return names.size() < EXERCISE_KEYS;
            });
        }
        return names;
    }

    private boolean sign(LoadedKey key, String name, byte[] input) {
        ThreadLocalRandom.current().nextBytes(input);
        try {
            operation.perform(key, SkiRequest.sign(name, schemeFor(key.type()), input));
            return true;
        } catch (RuntimeException e) { // SkiException included: a key whose type the scheme does not fit
            return false;
        }
    }

    private static SignatureScheme schemeFor(KeyType type) {
        return switch (type) {
            case EC_P256 -> SignatureScheme.ECDSA_SECP256R1_SHA256;
            case EC_P384 -> SignatureScheme.ECDSA_SECP384R1_SHA384;
            case ED25519 -> SignatureScheme.ED25519;
            case RSA_2048, RSA_3072, RSA_4096 -> SignatureScheme.RSA_PSS_RSAE_SHA256;
        };
    }
}
