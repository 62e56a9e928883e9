// GenerateCommand -- `keys generate`: many keys, each certified by the dev CA, made on every core, written in batches.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.store.elastic.IdlePriority;

import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Fills a store with test keys: each batch (a key pair and a certificate per key) is made on a worker thread and
 * written with one {@code putAll}, so generation runs on every core while the store takes the previous batch.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Generate keys, each with its own server certificate from the development CA (--pki).",
                "Each key's certificate is for the DNS name --name with the key's number, e.g. key-17.example.test.",
                "RSA keys are slow to generate (RSA-2048 some 10-100 per second per core, RSA-4096 a few): for "
                        + "large counts, --rsa-pool N generates N RSA keys and reuses them round-robin, each use "
                        + "under its own certificate. The store then holds N keys, each with count/N "
                        + "certificates, and every certificate's SHA-1 fingerprint resolves to its key. EC and "
                        + "Ed25519 keys are cheap: a million take minutes."})
final class GenerateCommand extends KeysSubcommand {
    @Option(names = "--count", required = true, paramLabel = "N", description = "How many keys (certificates).")
    long count;

    @Option(names = "--type", defaultValue = "ec256", paramLabel = "TYPE",
            description = "rsa2048, rsa3072, rsa4096, ec256, ec384 or ed25519 (default: ${DEFAULT-VALUE}).")
    String type;

    @Option(names = "--pki", paramLabel = "DIR",
            description = "The development PKI whose CA certifies the keys (created when missing). "
                    + "Default: <data>/pki, the one the key server uses.")
    Path pki;

    @Option(names = "--name", defaultValue = "key-%d.example.test", paramLabel = "PATTERN",
            description = "DNS name pattern, with %%d for the key's number (default: key-%%d.example.test).")
    String namePattern;

    @Option(names = "--first", defaultValue = "0", paramLabel = "N",
            description = "Number of the first key, to add more keys with new names (default: ${DEFAULT-VALUE}).")
    long first;

    @Option(names = "--rsa-pool", defaultValue = "0", paramLabel = "N",
            description = "RSA only: generate N keys and reuse them, each under its own certificate "
                    + "(default: 0, every key new).")
    int rsaPool;

    @Option(names = "--tag", split = ",", paramLabel = "TAG", description = "Tags for the generated keys.")
    List<String> tags = new ArrayList<>();

    @Option(names = "--days", defaultValue = "825", paramLabel = "DAYS",
            description = "Certificate validity (default: ${DEFAULT-VALUE}).")
    long days;

    @Option(names = "--batch", defaultValue = "1000", paramLabel = "N",
            description = "Keys per store write (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads (default: the number of cores).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Mixin
    WarmStartMixin warmStart = new WarmStartMixin();

    @Override
    int run() throws Exception {
        KeyType keyType = KeyType.parse(type);
        boolean rsa = keyType.keyAlgorithm().equals("RSA");
        if (count <= 0 || batch <= 0 || threads <= 0 || rsaPool < 0 || first < 0) {
            throw new CliException("--count, --batch and --threads must be positive; --rsa-pool and --first "
                    + "not negative");
        }
        if (rsaPool > 0 && !rsa) {
            throw new CliException("--rsa-pool applies to RSA key types only, not " + keyType.cliName());
        }
        KeyBatchMaker.name(namePattern, first);
        KeyServerConfig config = config();
        // ACCP, where it loads, generates keys and signs certificates many times faster than the JDK.
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.parse(config.cryptoProvider()));
        DevPki devPki = DevPki.loadOrCreate(pki != null ? pki : config.dataDir().resolve("pki"));
        boolean idle = inServer();
        ExecutorService workers = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(idle ? () -> atIdlePriority(runnable) : runnable, "keys-generate");
            thread.setDaemon(true);
            return thread;
        });
        try (RepositoryLease lease = warmStart.open(this)) {
            KeyRepository keys = lease.keys();
            long started = System.nanoTime();
            List<KeyPair> pool = rsaPool > 0 ? pool(workers, keyType, (int) Math.min(rsaPool, count)) : List.of();
            KeyBatchMaker maker = new KeyBatchMaker(devPki.ca(), keyType, pool, namePattern, Set.copyOf(tags),
                    Validity.days(days));
            AtomicLong done = new AtomicLong();
            List<Callable<Void>> batches = new ArrayList<>();
            long size = batchSize(count, batch, threads);
            for (long from = first; from < first + count; from += size) {
                long start = from;
                long end = Math.min(from + size, first + count);
                batches.add(() -> {
                    keys.addAll(maker.batch(start, end, done::incrementAndGet), lease.changes());
                    return null;
                });
            }
            await(workers, batches, progress().start(System.err, "generating " + keyType.cliName(), count,
                    "keys"), done);
            double seconds = (System.nanoTime() - started) / 1e9;
            out().printf("generated %,d %s certificates%s in %.1f s (%,.0f/s, %s); the store holds %,d keys%n",
                    count, keyType.cliName(), pool.isEmpty() ? " and keys" : " for " + pool.size() + " pooled keys",
                    seconds, count / seconds, provider, keys.count());
            warmStart.finish(keys, null, progress(), out());
            return 0;
        } finally {
            workers.shutdownNow();
        }
    }

    /**
     * {@code --batch}, made smaller when there would be fewer batches than threads: 1,000 RSA keys in one batch would
     * leave every core but one idle for a minute.
     */
    static long batchSize(long count, int batch, int threads) {
        return Math.max(1, Math.min(batch, (count + threads - 1) / threads));
    }

    private List<KeyPair> pool(ExecutorService workers, KeyType keyType, int size) throws Exception {
        AtomicLong done = new AtomicLong();
        List<KeyPair> pool = Collections.synchronizedList(new ArrayList<>());
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            tasks.add(() -> {
                pool.add(keyType.generate());
                done.incrementAndGet();
                return null;
            });
        }
        await(workers, tasks, progress().start(System.err, keyType.cliName() + " pool", size, "keys"), done);
        return List.copyOf(pool);
    }

    /** Runs {@code tasks}, drawing progress meanwhile; the first failure cancels the rest and is rethrown. */
    private static void await(ExecutorService workers, List<Callable<Void>> tasks, Progress progress,
                              AtomicLong done) throws Exception {
        List<Future<Void>> futures = new ArrayList<>();
        tasks.forEach(task -> futures.add(workers.submit(task)));
        try {
            for (Future<Void> future : futures) {
                while (true) {
                    try {
                        future.get(100, TimeUnit.MILLISECONDS);
                        break;
                    } catch (TimeoutException e) {
                        progress.update(done.get());
                    }
                }
                progress.update(done.get());
            }
        } catch (ExecutionException e) {
            futures.forEach(f -> f.cancel(true));
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        progress.finish(done.get());
    }

    /**
     * Inside a serving key server the keys are made on the cores its requests leave idle (Linux's {@code SCHED_IDLE},
     * else nice 19; {@link IdlePriority}): a generate of a million keys on a busy server takes longer, and never
     * delays an answer. The command's own thread keeps its priority, so a {@code keys remove} is never starved.
     */
    private static void atIdlePriority(Runnable work) {
        IdlePriority.lowerCurrentThread();
        work.run();
    }
}
