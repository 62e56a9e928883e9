package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

/**
 * One private-key operation, run synchronously: what the {@link CryptoEngine}'s workers execute.
 * {@link CryptoOperations} is the real one; the interface lets the engine's queueing be tested
 * with operations that block on a latch.
 */
@FunctionalInterface
public interface KeyOperation {
    /**
     * @return the output bytes, a new array the caller owns
     * @throws SkiException for the protocol's errors; any other exception is reported as
     *                      {@code unspecified error}
     */
    byte[] perform(LoadedKey key, SkiRequest request);

    /**
     * Performs the operation on the calling thread only if it costs about as little as a TLS record does (an
     * ECDSA P-256 signature whose nonce was made ahead: about a microsecond), so the {@link CryptoEngine} can answer
     * it without a hand-off to a worker and back; returns null, having done nothing, for anything dearer.
     *
     * @throws SkiException as {@link #perform} would, for a request that fails as cheaply
     */
    default byte[] performIfCheap(LoadedKey key, SkiRequest request) {
        return null;
    }
}
