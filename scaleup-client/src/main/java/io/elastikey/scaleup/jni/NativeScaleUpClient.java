// NativeScaleUpClient -- ScaleUpClient through libscaleup and JNI.
package io.elastikey.scaleup.jni;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpException.Reason;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rescale API through the C library the platform defines. Each call is one libscaleup call: one connection to
 * the agent, one request, one answer, within the timeout. Thread-safe; holds no native resources, so
 * {@link #close()} only marks it closed.
 *
 * <p>Arguments are checked here as libscaleup checks them: bad construction arguments throw
 * {@link IllegalArgumentException}, bad call arguments throw {@link ScaleUpException} with
 * {@link Reason#INVALID_ARGUMENT} (a size outside 0..2^40 MiB, a reason over 256 UTF-8 bytes or holding a NUL
 * character, which a C string cannot carry). A {@code null} reason is sent as the empty string.
 */
public final class NativeScaleUpClient implements ScaleUpClient {

    static final Pattern CLIENT_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    static final long MAX_MEMORY_MB = 1L << 40;
    static final int MAX_REASON_BYTES = 256;
    static final int MAX_SOCKET_PATH_BYTES = 107;

    private final Path socketPath;
    private final byte[] socketPathBytes;
    private final String clientName;
    private final byte[] clientBytes;
    private final int timeoutMs;
    private volatile boolean closed;

    /**
     * @param socketPathOrNull the agent's socket, or {@code null} for libscaleup's default ({@code $SCALEUP_SOCKET},
     *     else {@code /tmp/elastikey-scaleupd.sock})
     * @param clientName 1..64 characters of {@code [A-Za-z0-9._-]}
     * @param timeout per call, covering connect, write and read; at least 1 ms after rounding up, at most
     *     {@link Integer#MAX_VALUE} ms
     * @throws UnsatisfiedLinkError if no libscaleup_jni fits this platform (see {@link NativeLibrary})
     */
    public NativeScaleUpClient(Path socketPathOrNull, String clientName, Duration timeout) {
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(timeout, "timeout");
        if (!CLIENT_NAME.matcher(clientName).matches()) {
            throw new IllegalArgumentException("client name must be 1..64 of [A-Za-z0-9._-]: '" + clientName + "'");
        }
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("timeout must be positive and at most 2^31-1 ms: " + timeout);
        }
        this.socketPath = socketPathOrNull;
        this.socketPathBytes = socketPathOrNull == null ? null : pathBytes(socketPathOrNull);
        this.clientName = clientName;
        this.clientBytes = clientName.getBytes(StandardCharsets.US_ASCII);
        this.timeoutMs = (int) Math.max(1, timeout.plusNanos(999_999).toMillis());
        LibScaleUp.ensureLoaded();
    }

    private static byte[] pathBytes(Path path) {
        byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > MAX_SOCKET_PATH_BYTES || path.toString().indexOf('\0') >= 0) {
            throw new IllegalArgumentException("socket path must be 1.." + MAX_SOCKET_PATH_BYTES + " bytes: " + path);
        }
        return bytes;
    }

    @Override
    public String clientName() {
        return clientName;
    }

    @Override
    public ScaleUpResponse rescale(long memoryMb, String reason) throws ScaleUpException {
        checkOpen();
        if (memoryMb < 0 || memoryMb > MAX_MEMORY_MB) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, "memoryMb must be in 0..2^40: " + memoryMb);
        }
        byte[] reasonBytes = reason == null ? new byte[0] : reason.getBytes(StandardCharsets.UTF_8);
        if (reasonBytes.length > MAX_REASON_BYTES || (reason != null && reason.indexOf('\0') >= 0)) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT,
                    "reason must be at most " + MAX_REASON_BYTES + " UTF-8 bytes without NUL: " + reasonBytes.length);
        }
        Answer a = new Answer();
        return a.result("rescale", LibScaleUp.rescale(socketPathBytes, clientBytes, memoryMb, reasonBytes, timeoutMs,
                a.numbers, a.texts));
    }

    @Override
    public ScaleUpResponse status() throws ScaleUpException {
        checkOpen();
        Answer a = new Answer();
        return a.result("status", LibScaleUp.status(socketPathBytes, clientBytes, timeoutMs, a.numbers, a.texts));
    }

    @Override
    public ScaleUpResponse release() throws ScaleUpException {
        checkOpen();
        Answer a = new Answer();
        return a.result("release", LibScaleUp.release(socketPathBytes, clientBytes, timeoutMs, a.numbers, a.texts));
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "NativeScaleUpClient[" + clientName + " -> " + (socketPath == null ? "default socket" : socketPath)
                + ", " + timeoutMs + " ms]";
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /** The arrays one native call fills, and their conversion into a response or an exception. */
    private final class Answer {
        final long[] numbers = new long[LibScaleUp.NUMBERS];
        final byte[][] texts = new byte[LibScaleUp.TEXTS][];

        ScaleUpResponse result(String op, int code) throws ScaleUpException {
            if (code != 0) {
                Reason reason = Reason.fromCode(code);
                throw new ScaleUpException(reason, op + " for " + clientName + " via "
                        + (socketPath == null ? "the default socket" : socketPath) + ": " + LibScaleUp.strerror(code));
            }
            Status status = Status.values()[(int) numbers[0]];
            return new ScaleUpResponse(status, new String(texts[0], StandardCharsets.UTF_8), numbers[1], numbers[2],
                    numbers[3], new String(texts[1], StandardCharsets.UTF_8));
        }
    }
}
