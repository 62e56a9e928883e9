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
 * After {@code keys generate} or {@code keys import} the store has keys no server has held, and the snapshot of the
 * last stop no longer matches it, so the next start would load keys from the store while it serves: with a million
 * keys, a minute of misses under load (3,947 answers/s over the first minute here, max 2.3 s; docs/benchmarks.md).
 * So these commands end the way a server's stop does, and leave {@code key-cache.sealed} and {@code hot-keys}
 * ({@link WarmStartFiles}) for a server that holds every key:
 * <ul>
 *   <li>{@link #open} opens the store with the server's key parser and reads the last stop's snapshot into the
 *       cache when it still matches the store (it is consumed either way);</li>
 *   <li>{@link #finish} then caches only the keys the command wrote when that snapshot was read, else every stored
 *       key (a walk of the store: some 45 s a million keys), each under its certificate SHA-1, and saves both
 *       files.</li>
 * </ul>
 * An import of a few keys into a million-key store so costs seconds, not a walk. A store that keeps no write sequence
 * (Redis) gets nothing: its server walks the store itself. Inside a running server (the control socket) there is no
 * next start to prepare: the command writes through the server's own repository, and the keys an import wrote are
 * offered to its cache at once.
 */
final class WarmStartMixin {
    @Option(names = "--no-warm-start",
            description = "Do not prepare the key server's next start. By default the command ends by caching the "
                    + "keys as the server would (what the last stop's snapshot held, and the keys written now; or "
                    + "every stored key, some 45 s a million) and sealing them to <data>/key-cache.sealed, with "
                    + "<data>/hot-keys, so the server starts with every key cached.")
    boolean skip;

    private boolean inServer;
    private WarmStartFiles files;
    private List<String> lastHotKeys = List.of();
    private boolean snapshotRead;

    /**
     * The repository the command writes through: the running server's own when {@code command} runs inside it, else
     * one with the server's parser, its cache filled from the last snapshot.
     */
    RepositoryLease open(KeysSubcommand command) {
        if (command.inServer()) {
            inServer = true;
            return command.openRepository();
        }
        KeyServerConfig config = command.config();
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.parse(config.cryptoProvider()),
                config.nativeP256());
        KeyRepository keys = KeyRepository.open(config, provider.keyParser());
        if (!skip && keys.store().writeSequence().isPresent()) {
            files = new WarmStartFiles(config.dataDir());
            lastHotKeys = files.load(keys);
            snapshotRead = files.snapshotKeys() > 0;
        }
        return RepositoryLease.opened(keys);
    }

    /**
     * Caches what the next start should hold and saves it: {@code written} (identifiers of the keys the command
     * wrote) on top of the last snapshot, or every stored key when there was none to read or {@code written} is
     * {@code null}. Does nothing with --no-warm-start or for a store without a write sequence.
     */
    void finish(KeyRepository keys, List<String> written, Progress.Factory progress, PrintWriter out) {
        if (inServer) {
            int cached = written == null ? 0 : keys.preload(written);
            out.printf("the running key server serves them now%s%n",
                    written == null ? "" : String.format(" (%,d of %,d cached at once)", cached, written.size()));
            return;
        }
        if (files == null) {
            return;
        }
        long started = System.nanoTime();
        String how;
        if (snapshotRead && written != null) {
            keys.preload(written);
            how = "the last stop's snapshot and the " + written.size() + " key(s) written now";
        } else {
            long stored = keys.count();
            Progress bar = progress.start(System.err, "preparing the key server's start", stored, "keys");
            long[] walked = {0};
            keys.cacheStoredKeys(cachedSoFar -> {
                if (++walked[0] % 1024 == 0) {
                    bar.update(Math.min(walked[0], stored));
                }
                return true;
            });
            bar.finish(Math.min(walked[0], stored));
            how = "a walk of the " + stored + " stored keys";
        }
        files.save(keys, lastHotKeys);
        out.printf("prepared the key server's next start: %,d keys cached (%s) and sealed to %s in %.1f s%n",
                keys.cacheStats().entries(), how, files.snapshot(), (System.nanoTime() - started) / 1e9);
    }
}
