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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two things a fresh process lacks that a running one has.
 *
 * <p><b>Compiled code.</b> {@link #exercise} runs the lookup-and-sign path (store read, unseal, parse, signature)
 * on a few stored keys for a short time before {@code /readyz} says ready, so the JIT has compiled it before the
 * first client arrives rather than while clients wait. Its keys are found both ways in turn, the cache bypassed
 * (the path of a miss) and through it (a hit, once a cache snapshot filled it).
 *
 * <p><b>Parsed keys.</b> {@link #reload} loads the keys of the {@link HotKeyFile} (what the last run held, hottest
 * first) into the parsed-key cache on a background thread while the server already serves: a key a client asks for
 * meanwhile is loaded by its request as usual, so nothing waits for the reload. It reads the store in batches
 * ({@link KeyRepository#preload}), which ElasticStore serves in the order of its log rather than at random. A miss
 * a request pays costs more than a key the reload loads (a random read, alone), and the server reaches its full rate
 * only once the keys are in, so the reload runs flat out on two threads (docs/benchmarks.md, "Key server at scale").
 *
 * <p>With no hot-key file (the first start after keys were generated or imported, or any start that finds none),
 * {@link #walkStore} loads the stored keys in store order instead, until the cache is full.
 */
public final class KeyWarmup {
    private static final Logger log = LoggerFactory.getLogger(KeyWarmup.class);
    private static final int EXERCISE_KEYS = 32;
    /** Enough for C2 to compile the path (its thresholds are some 10,000 calls) with room to spare. */
    private static final int EXERCISE_OPERATIONS = 50_000;
    /** Keys read per store pass: enough for the store to order a batch's reads, few enough to hold in memory. */
    private static final int RELOAD_BATCH = 2048;
    /** Two where there are two cores or more: the reload then ends in about half the time under full load. */
    static final int RELOAD_THREADS = Math.min(2, Runtime.getRuntime().availableProcessors());

    private final KeyRepository repository;
    private final KeyOperation operation;
    private final AtomicLong reloaded = new AtomicLong();
    private volatile long toReload;
    private volatile List<String> reloading = List.of();
    private final AtomicInteger nextBatch = new AtomicInteger();
    private final AtomicLong cached = new AtomicLong();
    private final AtomicInteger reported = new AtomicInteger();
    private volatile boolean full;

    public KeyWarmup(KeyRepository repository, KeyOperation operation) {
        this.repository = repository;
        this.operation = operation;
    }

    /**
     * Signs with up to 32 keys named in {@code identifiers} (or, when it names none, the first stored keys) until
     * {@code budget} has passed or 50,000 operations are done, each key found in turn through the miss path (store,
     * unseal, parse) and the hit path (the parsed-key cache, when it holds the key: counted as a hit there); returns
     * the number of operations. Never throws: a key that fails is skipped.
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
        for (long round = 0; System.nanoTime() - deadline < 0 && operations < EXERCISE_OPERATIONS; round++) {
            for (String name : names) {
                LoadedKey cached = round % 2 == 0 ? null : repository.findCached(name);
                LoadedKey key = cached != null ? cached : repository.findUncached(name);
                if (key != null && sign(key, name, input)) {
                    operations++;
                }
            }
        }
        log.info("warm-up: {} lookups and signatures with {} keys in {} ms", operations, names.size(),
                (System.nanoTime() - deadline + budget.toNanos()) / 1_000_000);
        return operations;
    }

    /**
     * Starts loading {@code identifiers} into the parsed-key cache on {@link #RELOAD_THREADS} daemon threads, a batch
     * of {@value #RELOAD_BATCH} at a time in list order; returns at once, with what stops them.
     */
    public Runnable reload(List<String> identifiers) {
        toReload = identifiers.size();
        reloading = identifiers;
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < RELOAD_THREADS; i++) {
            Thread thread = new Thread(() -> reloadBatches(identifiers, start), "key-reload-" + i);
            thread.setDaemon(true);
            thread.setPriority(Thread.MIN_PRIORITY);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        return () -> threads.forEach(Thread::interrupt);
    }

    /**
     * For a start with no hot-key file: starts loading every stored key into the parsed-key cache, in store order,
     * on one daemon thread ({@link KeyRepository#cacheStoredKeys}), until the cache has no free room; returns at once,
     * with what stops it. {@link #reloaded} then counts the stored keys walked and {@link #toReload} is {@code
     * stored}, so the progress reads as for a reload.
     */
    public Runnable walkStore(long stored) {
        if (stored == 0) {
            return () -> { };
        }
        toReload = stored;
        long start = System.nanoTime();
        Thread thread = new Thread(() -> walk(stored, start), "key-reload-walk");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
        return thread::interrupt;
    }

    private void walk(long stored, long start) {
        log.info("no hot-key file: loading the {} stored keys into the parsed-key cache while serving", stored);
        long cachedNow;
        try {
            cachedNow = repository.cacheStoredKeys(cachedSoFar -> {
                cached.set(cachedSoFar);
                reportProgress("loading stored keys", reloaded.incrementAndGet(), stored, start);
                return !Thread.currentThread().isInterrupted();
            });
        } catch (RuntimeException e) {
            if (!Thread.currentThread().isInterrupted()) { // interrupted: the server is stopping, the store closed
                log.warn("loading stored keys stopped: {}", e.toString());
            }
            return;
        }
        if (Thread.currentThread().isInterrupted()) {
            return;
        }
        long walked = loadEnded();
        log.info("loaded stored keys: {} cached, {} walked, in {} ms{}", cachedNow, walked,
                (System.nanoTime() - start) / 1_000_000,
                walked < stored ? "; the parsed-key cache is full, the rest stay on disk" : "");
    }

    /** Logs the load's progress at each tenth of {@code total} and at its end. */
    private void reportProgress(String what, long done, long total, long start) {
        if (done * 10 / total > reported.get() || done == total) {
            reported.set((int) (done * 10 / total));
            log.info("{}: {}/{} ({}%), {} cached, in {} ms", what, done, total, done * 100 / total, cached.get(),
                    (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * Marks the load as over, perhaps short of its plan (a full cache, a walk over fewer keys than were counted): what
     * it got to is all this start loads, so {@link #reloaded} and {@link #toReload} agree that it is done. Returns it.
     */
    private long loadEnded() {
        long done = reloaded.get();
        toReload = done;
        return done;
    }

    /** Keys of the hot-key file loaded so far, or stored keys walked ({@link #walkStore}). */
    public long reloaded() {
        return reloaded.get();
    }

    /**
     * The identifiers {@link #reload} was given that it has not reached yet: the rest of the list while it runs or
     * after it stopped early (an interrupt at shutdown, a full cache), none once it went through it. What a stop
     * saves after the cache's own keys.
     */
    public List<String> notReloaded() {
        List<String> list = reloading;
        if (reloaded.get() >= list.size()) {
            return List.of();
        }
        // The batches handed out last may still be loading: count them as not reached (a duplicate costs nothing).
        int from = Math.max(0, nextBatch.get() - RELOAD_THREADS) * RELOAD_BATCH;
        return list.subList(Math.min(from, list.size()), list.size());
    }

    /** Keys of the hot-key file this start set out to load, or stored keys a walk set out to ({@link #walkStore}). */
    public long toReload() {
        return toReload;
    }

    private void reloadBatches(List<String> identifiers, long start) {
        int size = identifiers.size();
        for (int from = nextBatch.getAndIncrement() * RELOAD_BATCH; from < size && !full;
             from = nextBatch.getAndIncrement() * RELOAD_BATCH) {
            List<String> batch = identifiers.subList(from, Math.min(size, from + RELOAD_BATCH));
            int added;
            try {
                added = repository.preload(batch);
            } catch (RuntimeException e) {
                if (!Thread.currentThread().isInterrupted()) { // interrupted: the server is stopping, the store closed
                    log.warn("reloading hot keys stopped: {}", e.toString());
                }
                return;
            }
            long cached = this.cached.addAndGet(added);
            reportProgress("reloading hot keys", reloaded.addAndGet(batch.size()), size, start);
            if (added < batch.size() && repository.cacheStats().evictions() > 0) {
                full = true;
                loadEnded();
                log.info("reloading hot keys: the parsed-key cache is full after {} keys; the rest stay on disk",
                        cached);
                return;
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
        if (reloaded.get() >= size) {
            // Every key reached, so a stop saves none of it: let go of the list, a million strings (some 115 MB of
            // heap) that would otherwise be held for as long as the server runs.
            reloading = List.of();
        }
    }

    /**
     * A signature request for each of up to {@value #EXERCISE_KEYS} keys of {@code identifiers} (chosen as {@link
     * #exercise} chooses them), in the scheme its type signs with: what {@link NetworkWarmup} sends.
     */
    public List<SkiRequest> sampleRequests(List<String> identifiers) {
        List<SkiRequest> requests = new ArrayList<>();
        for (String name : exerciseKeys(identifiers)) {
            LoadedKey key = repository.findUncached(name);
            if (key != null) {
                byte[] input = new byte[64];
                ThreadLocalRandom.current().nextBytes(input);
                requests.add(SkiRequest.sign(name, schemeFor(key.type()), input));
            }
        }
        return requests;
    }

    /**
     * Up to {@value #EXERCISE_KEYS} of {@code identifiers}, spread over the list: its head is all key objects (RSA
     * first, see {@link KeyRepository#hottestCached}), whose signatures cost 30 times a P-256 one, and the budget
     * went on a few thousand of them while the common path stayed cold.
     */
    private List<String> exerciseKeys(List<String> identifiers) {
        List<String> names = new ArrayList<>();
        int count = Math.min(EXERCISE_KEYS, identifiers.size());
        for (int i = 0; i < count; i++) {
            names.add(identifiers.get((int) ((long) i * identifiers.size() / count)));
        }
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
