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
 * meanwhile is loaded by its request as usual, so nothing waits for the reload. The reload takes at most a quarter
 * of one core ({@link #RELOAD_SHARE}): half a million keys are some ten seconds of parsing, which at full speed
 * would be taken from the requests of the first minute (docs/benchmarks.md, "Key server at scale").
 */
public final class KeyWarmup {
    private static final Logger log = LoggerFactory.getLogger(KeyWarmup.class);
    private static final int EXERCISE_KEYS = 32;
    /** Enough for C2 to compile the path (its thresholds are some 10,000 calls) with room to spare. */
    private static final int EXERCISE_OPERATIONS = 50_000;
    /** The share of one core's time the reload may take; it sleeps the rest. */
    static final double RELOAD_SHARE = 0.25;
    /** Keys loaded between two pauses: long enough to measure, short enough not to be felt. */
    private static final int RELOAD_BATCH = 64;

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
        long batchStart = start;
        int step = Math.max(1, identifiers.size() / 10);
        for (String identifier : identifiers) {
            try {
                repository.find(identifier);
            } catch (RuntimeException e) {
                log.debug("hot key {} did not load: {}", identifier, e.toString());
            }
            long done = reloaded.incrementAndGet();
            if (done % step == 0 || done == identifiers.size()) {
                log.info("reloading hot keys: {}/{} ({}%) in {} ms", done, identifiers.size(),
                        done * 100 / identifiers.size(), (System.nanoTime() - start) / 1_000_000);
            }
            if (done % RELOAD_BATCH == 0) {
                if (!pause(System.nanoTime() - batchStart)) {
                    return;
                }
                batchStart = System.nanoTime();
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /** Sleeps so that {@code busyNanos} is {@link #RELOAD_SHARE} of the time; false when interrupted. */
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
