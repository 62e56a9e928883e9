package io.elastikey.keyserver.ski;

import io.elastikey.protocol.ski.SkiRequest;

import java.util.concurrent.CompletableFuture;

/**
 * The key server's one operation, free of HTTP: find the key a request names, check the
 * caller may use it, and perform the private-key operation off the event loop.
 *
 * <p>The future fails with an {@link io.elastikey.protocol.ski.SkiException} carrying the
 * protocol error to answer; any other failure is answered as {@code unspecified error}.
 */
public interface SkiService {
    CompletableFuture<byte[]> execute(Caller caller, SkiRequest request, long deadlineNanos);
}
