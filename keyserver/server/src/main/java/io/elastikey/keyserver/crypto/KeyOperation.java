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
}
