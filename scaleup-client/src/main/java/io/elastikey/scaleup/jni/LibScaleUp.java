// LibScaleUp -- the natives of scaleup_jni.c, one per libscaleup call, registered by its JNI_OnLoad.
package io.elastikey.scaleup.jni;

/**
 * The raw JNI surface. Strings cross as UTF-8 bytes; a {@code null} socket path means libscaleup's default
 * ({@code $SCALEUP_SOCKET}, else {@code /tmp/elastikey-scaleupd.sock}). Each call returns 0 or libscaleup's negative
 * {@code SCALEUP_E*} code; on 0 it has filled {@code numbers = {status ordinal, granted_mb, pool_free_mb,
 * elapsed_us}} (the C and Java status enums share their order) and {@code texts = {client, message}} as UTF-8.
 * Stateless and thread-safe.
 */
final class LibScaleUp {

    static {
        NativeLibrary.SCALEUP.load();
    }

    static final int NUMBERS = 4;
    static final int TEXTS = 2;

    private LibScaleUp() {
    }

    /** Runs the static initializer, which loads the library. */
    static void ensureLoaded() {
    }

    static native int rescale(byte[] socketPath, byte[] client, long memoryMb, byte[] reason, int timeoutMs,
                              long[] numbers, byte[][] texts);

    static native int status(byte[] socketPath, byte[] client, int timeoutMs, long[] numbers, byte[][] texts);

    static native int release(byte[] socketPath, byte[] client, int timeoutMs, long[] numbers, byte[][] texts);

    /** libscaleup's description of a code. */
    static native String strerror(int code);
}
