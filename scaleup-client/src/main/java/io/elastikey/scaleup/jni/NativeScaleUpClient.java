// NativeScaleUpClient -- ScaleUpClient through libscaleup and JNI.
package io.elastikey.scaleup.jni;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpException.Reason;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.protocol.ProtocolLimits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The rescale API through the C library the platform defines. Each call is one libscaleup call: one connection to
 * the agent, one request, one answer, within the timeout. Thread-safe; holds no native resources, so
 * {@link #close()} only marks it closed.
 *
 * <p>Arguments are checked here with the same {@link ProtocolLimits} the pure-Java client uses, so both fail alike:
 * a bad name, timeout or socket path, a size outside 0..2^40 MiB, a reason over 256 UTF-8 bytes or holding a NUL
 * character (which a C string cannot carry), or a call after {@link #close()}, throw {@link ScaleUpException} with
 * {@link Reason#INVALID_ARGUMENT}. A {@code null} reason is sent as the empty string.
 */
public final class NativeScaleUpClient implements ScaleUpClient {

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
     * @throws ScaleUpException {@link Reason#INVALID_ARGUMENT} for a bad name, timeout or socket path
     * @throws UnsatisfiedLinkError if no libscaleup_jni fits this platform (see {@link NativeLibrary})
     */
    public NativeScaleUpClient(Path socketPathOrNull, String clientName, Duration timeout) throws ScaleUpException {
        String problem = ProtocolLimits.clientNameProblem(clientName);
        if (problem != null) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, problem);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()
                || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, "timeout must be positive and at most 2^31-1 ms");
        }
        this.socketPath = socketPathOrNull;
        this.socketPathBytes = socketPathOrNull == null ? null : pathBytes(socketPathOrNull);
        this.clientName = clientName;
        this.clientBytes = clientName.getBytes(StandardCharsets.US_ASCII);
        this.timeoutMs = (int) Math.max(1, timeout.plusNanos(999_999).toMillis());
        LibScaleUp.ensureLoaded();
    }

    private static byte[] pathBytes(Path path) throws ScaleUpException {
        byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > MAX_SOCKET_PATH_BYTES || path.toString().indexOf('\0') >= 0) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT,
                    "socket path must be 1.." + MAX_SOCKET_PATH_BYTES + " bytes: " + path);
        }
        return bytes;
    }

    /** The socket libscaleup connects to: the one given, else {@code $SCALEUP_SOCKET}, else the default. */
    @Override
    public Path socketPath() {
        return socketPath != null ? socketPath : io.elastikey.scaleup.socket.SocketScaleUpClient.defaultSocketPath();
    }

    @Override
    public String clientName() {
        return clientName;
    }

    @Override
    public ScaleUpResponse rescale(long memoryMb, String reason) throws ScaleUpException {
        checkOpen();
        String text = reason == null ? "" : reason;
        String problem = ProtocolLimits.memoryProblem(memoryMb);
        if (problem == null) {
            problem = ProtocolLimits.reasonProblem(text);
        }
        if (problem != null) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, problem);
        }
        byte[] reasonBytes = text.getBytes(StandardCharsets.UTF_8);
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

    private void checkOpen() throws ScaleUpException {
        if (closed) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, this + " is closed");
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
