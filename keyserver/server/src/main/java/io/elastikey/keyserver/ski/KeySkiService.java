package io.elastikey.keyserver.ski;

import io.elastikey.keyserver.crypto.CryptoEngine;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Finds the key, checks the caller may use it, and has the crypto engine use it.
 *
 * <p>A key in the parsed-key cache is found on the calling thread (a hash lookup); any other
 * lookup may read the store from disk and unseal, so it runs on the {@code loaders} executor,
 * never on an event loop. Unknown keys answer {@code spki not found} before authorization, as
 * existing SKI servers do: key IDs are public (they are certificate digests).
 */
public final class KeySkiService implements SkiService {
    private final KeyRepository repository;
    private final CryptoEngine engine;
    private final Executor loaders;

    public KeySkiService(KeyRepository repository, CryptoEngine engine, Executor loaders) {
        this.repository = repository;
        this.engine = engine;
        this.loaders = loaders;
    }

    @Override
    public CompletableFuture<byte[]> execute(Caller caller, SkiRequest request, long deadlineNanos) {
        LoadedKey cached = repository.findCached(request.spki());
        if (cached != null) {
            return use(caller, cached, request, deadlineNanos);
        }
        try {
            return CompletableFuture.supplyAsync(() -> repository.find(request.spki()), loaders)
                    .thenCompose(key -> use(caller, key, request, deadlineNanos));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.OVERLOADED, "key loader queue full"));
        }
    }

    private CompletableFuture<byte[]> use(Caller caller, LoadedKey key, SkiRequest request, long deadlineNanos) {
        if (key == null) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.SPKI_NOT_FOUND));
        }
        if (!caller.permissions().permits(key)) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.REQUEST_DENIED,
                    caller.name() + " is not granted key " + key.keyId()));
        }
        return engine.submit(key, request, deadlineNanos);
    }
}
