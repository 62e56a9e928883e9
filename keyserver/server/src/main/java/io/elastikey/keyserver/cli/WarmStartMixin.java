// WarmStartMixin -- how keys generate and import end: with the warm-start files of a server that held every key.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.warmup.WarmStartFiles;

import java.io.PrintWriter;
import java.util.List;

import picocli.CommandLine.Option;

/**
 * After {@code keys generate} or {@code keys import} the store has keys no server has held, so the next start has
 * no cache snapshot and no hot-key list to follow, and walks the store while it serves: with a million keys, a
 * minute of misses under load (3,947 answers/s over the first minute here, max 2.3 s; docs/benchmarks.md). So these
 * commands end the way a server's stop does: they load the stored keys as the server's cache would (its parser, its
 * {@code keys.cache}, each key under its certificate SHA-1) and leave {@code key-cache.sealed} and {@code hot-keys}
 * ({@link WarmStartFiles}). The next start then has the keys cached before it is ready. A store that keeps no write
 * sequence (Redis) gets neither: its server walks the store as before.
 */
final class WarmStartMixin {
    @Option(names = "--no-warm-start",
            description = "Do not prepare the key server's next start. By default the command ends by loading the "
                    + "stored keys as the server's parsed-key cache would and sealing them to <data>/key-cache.sealed "
                    + "(with <data>/hot-keys), so the server starts with every key cached: some 30 s more for a "
                    + "million P-256 keys.")
    boolean skip;

    /** Prepares the warm start of {@code config}'s server, drawing progress; does nothing with --no-warm-start. */
    void prepare(KeyServerConfig config, Progress.Factory progress, PrintWriter out) {
        if (skip) {
            return;
        }
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.parse(config.cryptoProvider()),
                config.nativeP256());
        try (KeyRepository keys = KeyRepository.open(config, provider.keyParser())) {
            if (keys.store().writeSequence().isEmpty()) {
                return;
            }
            long started = System.nanoTime();
            long stored = keys.count();
            Progress bar = progress.start(System.err, "preparing the key server's start", stored, "keys");
            long[] walked = {0};
            long cached = keys.cacheStoredKeys(cachedSoFar -> {
                if (++walked[0] % 1024 == 0) {
                    bar.update(Math.min(walked[0], stored));
                }
                return true;
            });
            bar.finish(Math.min(walked[0], stored));
            new WarmStartFiles(config.dataDir()).save(keys, List.of());
            out.printf("prepared the key server's next start: %,d of %,d keys cached and sealed to %s in %.1f s%n",
                    cached, stored, config.dataDir().resolve(WarmStartFiles.SNAPSHOT), (System.nanoTime() - started) / 1e9);
        }
    }
}
