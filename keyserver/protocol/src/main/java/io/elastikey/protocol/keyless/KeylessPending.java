// KeylessPending -- one request of a KeylessClient, from submission to its answer.
package io.elastikey.protocol.keyless;

import java.util.concurrent.CompletableFuture;

/**
 * A request waiting to be written or answered. Its ID is given by the connection that writes it, on that
 * connection's event loop; everything else is fixed at creation. The arrays are owned by the request.
 */
final class KeylessPending {
    private final int opcode;
    private final byte[] ski;
    private final byte[] digest;
    private final byte[] payload;
    private final CompletableFuture<byte[]> future = new CompletableFuture<>();
    /** Set on the event loop when written; read there too. */
    private KeylessClientHandler writtenBy;
    private int id;

    KeylessPending(int opcode, byte[] ski, byte[] digest, byte[] payload) {
        this.opcode = opcode;
        this.ski = ski;
        this.digest = digest;
        this.payload = payload;
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

    void written(KeylessClientHandler handler, int requestId) {
        this.writtenBy = handler;
        this.id = requestId;
    }

    KeylessClientHandler writtenBy() {
        return writtenBy;
    }

    int id() {
        return id;
    }
}
