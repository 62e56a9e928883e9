// LocalKeyOperations -- the edge's private-key step done in-process with local keys: the benchmark's baseline.
package io.elastikey.perf.handshake;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import io.elastikey.edge.tls.KeyOperations;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoEngine;
import io.elastikey.keyserver.crypto.CryptoEngineConfig;
import io.elastikey.keyserver.crypto.CryptoOperations;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Answers the edge's SKI requests with private keys held in this process, for one purpose only: measuring the
 * edge with its key next to it, against the same edge with the key in the key server (issue 4's "remote at least
 * 70% of local"). A production edge never holds a private key.
 *
 * <p>Everything but the network is the key server's own code, so the comparison isolates the remote hop: the keys
 * come from the key server's {@link KeyRepository} (the data directory of a {@code keyserver}, with its KEK), the
 * operation is {@link CryptoOperations} with the provider and implicit-rejection secret the server would use, and it
 * runs on a {@link CryptoEngine} sized like the server's ({@code crypto.workers}, {@code crypto.queue}), so the
 * edge's event loop never signs. Each key is looked up once, on a loader thread (a lookup may read the store and
 * unseal), and kept per identifier; requests for a key whose lookup is under way wait for it.
 *
 * <p>Futures complete on a crypto worker (or the loader, for an unknown key); callers hand off, as the edge's
 * {@code RemoteKeyMethod} does. Errors are {@link SkiException}s, as the key server would answer:
 * {@code spki not found}, {@code overloaded} (queue full or past {@code timeouts.request}), {@code malformed
 * request}, {@code unspecified error}. Thread-safe.
 */
public final class LocalKeyOperations implements KeyOperations, AutoCloseable {
    private final KeyRepository repository;
    private final CryptoEngine engine;
    private final ExecutorService loader;
    private final long deadlineNanos;
    private final Map<String, CompletableFuture<LoadedKey>> keys = new ConcurrentHashMap<>();

    /**
     * Opens the key repository of {@code config} (which this object then owns: one process at a time may) and
     * starts the crypto workers.
     *
     * @throws IllegalStateException    when the configured crypto provider is required and cannot load
     * @throws IllegalArgumentException when {@code crypto.provider} names no provider
     */
    public LocalKeyOperations(KeyServerConfig config) {
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.parse(config.cryptoProvider()));
        this.repository = KeyRepository.open(config, provider.keyParser());
        try {
            CryptoOperations operations = new CryptoOperations(provider,
                    repository.derivedSecret("ski implicit rejection v1")); // the key server's purpose string
            this.engine = new CryptoEngine(operations, CryptoEngineConfig.defaults()
                    .withWorkers(config.cryptoWorkers()).withQueueCapacity(config.cryptoQueue()));
        } catch (RuntimeException e) {
            repository.close();
            throw e;
        }
        this.loader = Executors.newSingleThreadExecutor(new DefaultThreadFactory("local-key-loader", true));
        this.deadlineNanos = config.requestDeadline().toNanos();
    }

    @Override
    public CompletableFuture<byte[]> execute(SkiRequest request) {
        long deadline = System.nanoTime() + deadlineNanos;
        CompletableFuture<LoadedKey> key = keys.get(request.spki());
        if (key == null) {
            try {
                key = keys.computeIfAbsent(request.spki(), this::load);
            } catch (RejectedExecutionException e) {
                return CompletableFuture.failedFuture(new SkiException(SkiError.OVERLOADED, "key loader closed"));
            }
        }
        if (key.isDone() && !key.isCompletedExceptionally()) {
            return engine.submit(key.join(), request, deadline);
        }
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        key.whenComplete((k, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
            } else {
                engine.submit(k, request, deadline).whenComplete((output, error) -> {
                    if (error != null) {
                        answer.completeExceptionally(error);
                    } else {
                        answer.complete(output);
                    }
                });
            }
        });
        return answer;
    }

    /** Looks the key up on the loader thread; a key not found is forgotten, so a later request looks again. */
    private CompletableFuture<LoadedKey> load(String identifier) {
        CompletableFuture<LoadedKey> found = CompletableFuture.supplyAsync(() -> {
            LoadedKey key = repository.find(identifier);
            if (key == null) {
                throw new SkiException(SkiError.SPKI_NOT_FOUND, "no local key " + identifier);
            }
            return key;
        }, loader);
        // On the loader, never inline: this runs inside computeIfAbsent, which must not see the map change under it.
        found.whenCompleteAsync((key, failure) -> {
            if (failure != null) {
                keys.remove(identifier, found);
            }
        }, loader);
        return found;
    }

    /** Keys looked up and kept so far. */
    public int keysLoaded() {
        return (int) keys.values().stream().filter(k -> k.isDone() && !k.isCompletedExceptionally()).count();
    }

    /** Lets queued operations finish (see {@link CryptoEngine#close()}), then closes the repository. */
    @Override
    public void close() {
        loader.shutdownNow();
        engine.close();
        repository.close();
    }
}
