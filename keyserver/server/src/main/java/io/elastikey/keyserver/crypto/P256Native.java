// P256Native -- ECDSA P-256 signatures from a bare private scalar, through the system's libcrypto (p256_jni.c).
package io.elastikey.keyserver.crypto;

import io.elastikey.scaleup.jni.NativeLibrary;

import java.security.SignatureException;
import java.util.Arrays;

/**
 * Signs P-256 digests with a {@link P256ScalarKey}: the 32-byte scalar and nothing else, so loading a key costs no
 * scalar multiplication (a JCA provider's key factory does one to derive or check the public key, as much work as the
 * signature) and a cached key takes 32 bytes. The library is {@code native/p256_jni.c}, built against OpenSSL's
 * libcrypto when its headers are present; where it is not built or does not load, {@link #load()} says why and the
 * key server signs P-256 with its JCA provider as before.
 *
 * <p>Thread-safe: the library keeps one OpenSSL key object per thread and puts the scalar in it only for the call.
 * A signature takes its nonce from the pool {@link P256NoncePool} fills when that runs, and makes one otherwise.
 */
final class P256Native {
    /** The longest DER {@code ECDSA-Sig-Value} on P-256: two 33-byte INTEGERs with headers, in a SEQUENCE. */
    static final int MAX_SIGNATURE_LENGTH = 72;
    /** The library's answer to a pooled-only signature when the pool is empty. */
    private static final int NO_POOLED_NONCE = -5;

    private static final NativeLibrary LIBRARY = new NativeLibrary("libelastikey_p256_jni",
            "libelastikey_p256_jni.so", "elastikey.p256.library");

    private final String version;

    private P256Native(String version) {
        this.version = version;
    }

    /** The loaded signer, or the reason it cannot be had. */
    record Loaded(P256Native signer, String problem) {
    }

    /** Loads the library (once per JVM) and signs one digest as a check. */
    static Loaded load() {
        try {
            LIBRARY.load();
            P256Native signer = new P256Native(libraryVersion());
            return new Loaded(signer, null);
        } catch (UnsatisfiedLinkError e) {
            return new Loaded(null, e.getMessage());
        }
    }

    /** The crypto library's version line, e.g. {@code OpenSSL 3.0.19 27 Jan 2026}. */
    String version() {
        return version;
    }

    /**
     * Signs {@code digest[0, length)} (a hash value; longer than 32 bytes it is truncated as ECDSA says) with
     * {@code key}; returns the DER {@code ECDSA-Sig-Value}.
     *
     * @throws SignatureException when the library refuses; the message carries its code, never the data
     */
    byte[] sign(P256ScalarKey key, byte[] digest, int length) throws SignatureException {
        return sign(key, digest, length, false);
    }

    /**
     * As {@link #sign(P256ScalarKey, byte[], int)}, but only with a nonce {@link P256NoncePool} made ahead: about a
     * microsecond. Returns null, having signed nothing, when the pool has none at the moment.
     */
    byte[] signWithPooledNonce(P256ScalarKey key, byte[] digest, int length) throws SignatureException {
        return sign(key, digest, length, true);
    }

    private static byte[] sign(P256ScalarKey key, byte[] digest, int length, boolean pooledOnly)
            throws SignatureException {
        byte[] signature = new byte[MAX_SIGNATURE_LENGTH];
        int written = sign(key.scalar(), digest, length, signature, pooledOnly);
        if (written == NO_POOLED_NONCE) {
            return null;
        }
        if (written <= 0) {
            throw new SignatureException("native P-256 signing failed: " + describe(written));
        }
        return written == signature.length ? signature : Arrays.copyOf(signature, written);
    }

    static String describe(int code) {
        return switch (code) {
            case -1 -> "an argument of the wrong size";
            case -2 -> "out of memory";
            case -3 -> "the crypto library refused to sign";
            case -4 -> "the signature does not fit";
            default -> "code " + code;
        };
    }

    private static native int sign(byte[] scalar, byte[] digest, int digestLength, byte[] signature,
                                   boolean pooledOnly);

    private static native String libraryVersion();

    /** Arms the nonce pool ({@link P256NoncePool}) with {@code target} pairs to keep ready; returns the target kept. */
    static native int openNoncePool(int target);

    /** Fills the nonce pool on the calling thread, at idle priority, until {@link #closeNoncePool()}; returns 1 for
     * {@code SCHED_IDLE}, 2 for nice 19, 0 for neither. */
    static native int fillNoncePool();

    static native void closeNoncePool();

    /** Writes made, taken, missed, pooled into {@code out[0..3]}. */
    static native void noncePoolStats(long[] out);
}
