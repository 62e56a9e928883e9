// NoPooledNonce -- a P-256 signature asked to finish on the request's thread found no nonce made ahead.
package io.elastikey.keyserver.crypto;

/**
 * Thrown by {@link JcaObjects#signP256} in pooled-nonces-only mode when the pool is empty: nothing was signed, and
 * {@link CryptoOperations#performIfCheap} answers null so the operation goes to a worker. One shared instance with
 * no stack trace: it is control flow on a hot path, and carries no data.
 */
final class NoPooledNonce extends RuntimeException {
    static final NoPooledNonce INSTANCE = new NoPooledNonce();

    private NoPooledNonce() {
        super("no P-256 nonce made ahead", null, false, false);
    }
}
