// KeylessPending -- one request of a KeylessClient, from submission to its answer.
package io.elastikey.protocol.keyless;

import java.util.concurrent.CompletableFuture;

/**
 * A request waiting to be written or answered, with its deadline. Its ID is given by the connection that writes it;
 * everything here is fixed at creation. The arrays are owned by the request.
 */
final class KeylessPending {
    private final int opcode;
    private final byte[] ski;
    private final byte[] digest;
    private final byte[] payload;
    private final long deadlineNanos;
    private final CompletableFuture<byte[]> future = new CompletableFuture<>();

    /** @param deadlineNanos the {@link System#nanoTime()} after which the request fails with a timeout */
    KeylessPending(int opcode, byte[] ski, byte[] digest, byte[] payload, long deadlineNanos) {
        this.opcode = opcode;
        this.ski = ski;
        this.digest = digest;
        this.payload = payload;
        this.deadlineNanos = deadlineNanos;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    CompletableFuture<byte[]> future() {
        return future;
    }

    void fail(Throwable failure) {
        future.completeExceptionally(failure);
    }

    int opcode() {
        return opcode;
    }

    byte[] ski() {
        return ski;
    }

    byte[] digest() {
        return digest;
    }

    byte[] payload() {
        return payload;
    }
}
