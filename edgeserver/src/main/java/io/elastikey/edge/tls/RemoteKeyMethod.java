package io.elastikey.edge.tls;

import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiRequest;
import io.netty.handler.ssl.OpenSslAsyncPrivateKeyMethod;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSession;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * BoringSSL's asynchronous private-key method, answered by the key server: the one place a handshake needs
 * the private key, turned into one SKI request. BoringSSL suspends the handshake until the returned future
 * completes, so the event loop serves other connections meanwhile.
 *
 * <ul>
 *   <li>{@code sign}: every TLS 1.3 signature and every TLS 1.2 ECDHE one. BoringSSL passes the message
 *       itself (not a digest) and the signature scheme, which is exactly SKI {@code SIGN}. The TLS 1.0/1.1
 *       {@code MD5-SHA1} RSA signature becomes {@code ECDHE} with that hash.</li>
 *   <li>{@code decrypt}: TLS 1.2 RSA key exchange. The key server answers {@code RSA-RAW}, the bare RSA
 *       block, and BoringSSL checks the PKCS#1 padding itself in constant time, as TLS requires; the key
 *       server never tells a valid padding from a bad one.</li>
 * </ul>
 *
 * <p>The key is named by the SPKI SHA-256 of the leaf certificate the engine presents, which the key
 * server always knows, whichever way the key was imported.
 */
public final class RemoteKeyMethod implements OpenSslAsyncPrivateKeyMethod {
    /**
     * The answer to BoringSSL when no key server could do the operation. netty-tcnative turns a failed future
     * into an empty result that BoringSSL would send as an empty signature, so a failure is instead answered
     * with more bytes than any key's output: tcnative refuses those and BoringSSL aborts the handshake
     * without sending anything it signed. Never sent anywhere; read only to measure its length.
     */
    private static final byte[] REFUSAL = new byte[1 << 16];

    private final KeyOperations operations;
    private final KeyOperationListener listener;
    private final KeyFailureLog failures = new KeyFailureLog();
    /**
     * Engines whose key operation failed, until their handshake ends. Weak: an operation that fails after its
     * client left (the handshake already ended) must not keep the engine forever.
     */
    private final Set<SSLEngine> failedEngines = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));

    public RemoteKeyMethod(KeyOperations operations, KeyOperationListener listener) {
        this.operations = operations;
        this.listener = listener;
    }

    @Override
    public Future<byte[]> sign(SSLEngine engine, int signatureAlgorithm, byte[] input) {
        String keyId;
        try {
            keyId = keyId(engine);
        } catch (SSLHandshakeException e) {
            return ImmediateEventExecutor.INSTANCE.newFailedFuture(e);
        }
        if (signatureAlgorithm == SSL_SIGN_RSA_PKCS1_MD5_SHA1) {
            return run(engine, SkiRequest.ecdhe(keyId, SkiHash.MD5_SHA1, input), KeyOperationListener.Kind.SIGN);
        }
        SignatureScheme scheme = SignatureScheme.fromCodePoint(signatureAlgorithm);
        if (scheme == null) {
            return ImmediateEventExecutor.INSTANCE.newFailedFuture(new SSLHandshakeException(
                    "signature algorithm 0x" + Integer.toHexString(signatureAlgorithm) + " has no SKI scheme"));
        }
        return run(engine, SkiRequest.sign(keyId, scheme, input), KeyOperationListener.Kind.SIGN);
    }

    @Override
    public Future<byte[]> decrypt(SSLEngine engine, byte[] input) {
        try {
            return run(engine, SkiRequest.rsaRaw(keyId(engine), input), KeyOperationListener.Kind.DECRYPT);
        } catch (SSLHandshakeException e) {
            return ImmediateEventExecutor.INSTANCE.newFailedFuture(e);
        }
    }

    /**
     * Whether {@code engine}'s key operation failed, forgetting it: asked once per handshake when it ends, so
     * the handshake's failure can be put down to the key servers and answered with an alert.
     */
    public boolean keyOperationFailed(SSLEngine engine) {
        return failedEngines.remove(engine);
    }

    private Future<byte[]> run(SSLEngine engine, SkiRequest request, KeyOperationListener.Kind kind) {
        Promise<byte[]> promise = ImmediateEventExecutor.INSTANCE.newPromise();
        long start = System.nanoTime();
        operations.execute(request).whenComplete((output, failure) -> {
            long nanos = System.nanoTime() - start;
            if (failure == null) {
                listener.succeeded(kind, nanos);
                promise.trySuccess(output);
            } else {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                listener.failed(kind, nanos, cause);
                failures.failed(kind, cause);
                failedEngines.add(engine);
                promise.trySuccess(REFUSAL);
            }
        });
        return promise;
    }

    /**
     * The key server's name for the key behind the certificate this handshake presents, which the registry worked
     * out when it read the certificate ({@link SniKeyManager} hands out the registry's chains only).
     */
    static String keyId(SSLEngine engine) throws SSLHandshakeException {
        SSLSession session = engine.getHandshakeSession();
        Certificate[] local = (session != null ? session : engine.getSession()).getLocalCertificates();
        if (local == null || local.length == 0 || !(local[0] instanceof EncodedCertificate leaf)) {
            throw new SSLHandshakeException("no certificate was selected for this handshake");
        }
        return leaf.keyId();
    }
}
