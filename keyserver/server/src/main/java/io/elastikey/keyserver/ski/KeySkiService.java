package io.elastikey.keyserver.ski;

import io.elastikey.keyserver.crypto.CryptoEngine;
import io.elastikey.keyserver.keys.KeyLookup;
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
 * <p>A key in the parsed-key cache that the caller may use is found on the calling thread (a hash lookup); every
 * other request, an unknown key's and a denied one's included, goes to the {@code loaders} executor, since the
 * lookup may read the store from disk and unseal, and an event loop must never wait for that.
 *
 * <p>A key the caller may not use fails with {@code request denied}, the true reason, which the audit log and the
 * metrics record; whether the client is told so or gets {@code spki not found} as for an unknown key is the HTTP
 * layer's choice ({@code authz.denied-answer}). To keep the two alike in cost as well, a denial is decided on the
 * stored record's clear fields, before anything is unsealed ({@link KeyRepository#find(String,
 * io.elastikey.keyserver.keys.KeyAccess)}), and is answered from a loader thread like an unknown key, even when the
 * key is in the cache.
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
        if (cached != null && caller.permissions().permits(cached)) {
            return engine.submit(cached, request, deadlineNanos);
        }
        try {
            return CompletableFuture.supplyAsync(() -> repository.find(request.spki(), caller.permissions()), loaders)
                    .thenCompose(lookup -> use(caller, lookup, request, deadlineNanos));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.OVERLOADED, "key loader queue full"));
        }
    }

    private CompletableFuture<byte[]> use(Caller caller, KeyLookup lookup, SkiRequest request, long deadlineNanos) {
        if (lookup.denied()) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.REQUEST_DENIED,
                    caller.name() + " is not granted key " + request.spki()));
        }
        if (lookup.key() == null) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.SPKI_NOT_FOUND));
        }
        return engine.submit(lookup.key(), request, deadlineNanos);
    }
}
