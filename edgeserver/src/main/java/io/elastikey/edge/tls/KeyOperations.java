package io.elastikey.edge.tls;

import io.elastikey.protocol.ski.SkiRequest;

import java.util.concurrent.CompletableFuture;

/**
 * Where a handshake's private-key operation is done: the key-server pool in production, a local key in the
 * benchmark that compares the two. Implementations must not block the caller, a Netty event loop.
 */
@FunctionalInterface
public interface KeyOperations {
    /** The SKI answer's output: a signature, or the raw RSA decryption of an {@code RSA-RAW} request. */
    CompletableFuture<byte[]> execute(SkiRequest request);
}
