// SocketScaleUpClient -- the rescale API in pure Java: one Unix-socket connection per call to scaleupd.
package io.elastikey.scaleup.socket;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpException.Reason;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.protocol.MalformedMessageException;
import io.elastikey.scaleup.protocol.ProtocolLimits;
import io.elastikey.scaleup.protocol.ScaleUpJson;
import io.elastikey.scaleup.protocol.ScaleUpRequest;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Talks to {@code scaleupd} over its Unix socket without native code, failing exactly as libscaleup does: no
 * socket or nobody listening is {@link Reason#NO_AGENT}, no complete answer before the deadline is
 * {@link Reason#TIMEOUT}, an answer that is not the protocol's is {@link Reason#MALFORMED_ANSWER}, an answer line
 * over 4096 bytes is {@link Reason#ANSWER_TOO_LARGE}, a bad argument is {@link Reason#INVALID_ARGUMENT}, any other
 * socket failure (the agent closing without a whole answer included) is {@link Reason#IO}.
 *
 * <p>Why a connection per call and not a pool: a Unix-socket connect is a few microseconds of kernel work, well
 * inside the 1 ms round trip the governor can afford, and rescale calls are rare (a memory governor asks a few times
 * a minute). A fresh connection never meets a restarted agent's dead socket or the agent's idle timeout, needs no
 * retry logic, and makes the client thread-safe with no lock: calls share nothing but immutable fields. Each call
 * has one deadline, {@code timeout} from its start, covering connect, write and read.
 */
public final class SocketScaleUpClient implements ScaleUpClient {
    /** Where the agent listens unless {@code SCALEUP_SOCKET} says otherwise. */
    public static final Path DEFAULT_SOCKET = Path.of("/tmp/elastikey-scaleupd.sock");
    /** The environment variable naming the socket, as for libscaleup. */
    public static final String SOCKET_ENV = "SCALEUP_SOCKET";
    private static final int MAX_SUN_PATH_BYTES = 107;

    private final Path socketPath;
    private final UnixDomainSocketAddress address;
    private final String clientName;
    private final long timeoutNanos;
    private volatile boolean closed;

    /**
     * @param socketPathOrNull the agent's socket; {@code null} for {@link #defaultSocketPath()}
     * @param clientName 1..64 bytes of {@code [A-Za-z0-9._-]}
     * @param timeout the most one call may take, positive
     * @throws ScaleUpException {@link Reason#INVALID_ARGUMENT} for a bad name, timeout or socket path
     */
    public SocketScaleUpClient(Path socketPathOrNull, String clientName, Duration timeout) throws ScaleUpException {
        String problem = ProtocolLimits.clientNameProblem(clientName);
        if (problem != null) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, problem);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, "timeout must be positive");
        }
        Path path = socketPathOrNull != null ? socketPathOrNull : defaultSocketPath();
        if (path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SUN_PATH_BYTES) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT,
                    "socket path is longer than " + MAX_SUN_PATH_BYTES + " bytes: " + path);
        }
        this.socketPath = path;
        this.address = UnixDomainSocketAddress.of(path);
        this.clientName = clientName;
        this.timeoutNanos = timeout.toNanos();
    }

    /** {@code $SCALEUP_SOCKET} if set and not empty, else {@link #DEFAULT_SOCKET}. */
    public static Path defaultSocketPath() {
        String env = System.getenv(SOCKET_ENV);
        return env != null && !env.isEmpty() ? Path.of(env) : DEFAULT_SOCKET;
    }

    /** The socket this client connects to. */
    @Override
    public Path socketPath() {
        return socketPath;
    }

    @Override
    public String clientName() {
        return clientName;
    }

    @Override
    public ScaleUpResponse rescale(long memoryMb, String reason) throws ScaleUpException {
        String problem = ProtocolLimits.memoryProblem(memoryMb);
        if (problem == null) {
            problem = ProtocolLimits.reasonProblem(reason == null ? "" : reason);
        }
        if (problem != null) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, problem);
        }
        return call(ScaleUpRequest.rescale(clientName, memoryMb, reason));
    }

    @Override
    public ScaleUpResponse status() throws ScaleUpException {
        return call(ScaleUpRequest.status(clientName));
    }

    @Override
    public ScaleUpResponse release() throws ScaleUpException {
        return call(ScaleUpRequest.release(clientName));
    }

    /**
     * Sets the agent's pool to {@code poolMb} (an administrator's call: the agent takes it from root or its own
     * user only). A pool smaller than what is lent makes the agent ask clients to give back; see docs/scaleup.md.
     */
    public ScaleUpResponse pool(long poolMb) throws ScaleUpException {
        String problem = ProtocolLimits.memoryProblem(poolMb);
        if (problem != null) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, problem);
        }
        return call(ScaleUpRequest.pool(clientName, poolMb));
    }

    @Override
    public void close() {
        closed = true;
    }

    private ScaleUpResponse call(ScaleUpRequest request) throws ScaleUpException {
        if (closed) {
            throw new ScaleUpException(Reason.INVALID_ARGUMENT, "the client is closed");
        }
        long deadline = System.nanoTime() + timeoutNanos;
        ByteBuffer out = ByteBuffer.wrap(ScaleUpJson.encodeRequest(request));
        try (SocketChannel ch = connect(); Selector selector = Selector.open()) {
            SelectionKey key = ch.register(selector, 0);
            while (out.hasRemaining()) {
                if (ch.write(out) == 0) {
                    await(selector, key, SelectionKey.OP_WRITE, deadline);
                }
            }
            ScaleUpResponse answer = readAnswer(ch, selector, key, deadline);
            if (!answer.client().equals(clientName) && answer.status() != ScaleUpResponse.Status.ERROR) {
                throw new ScaleUpException(Reason.MALFORMED_ANSWER,
                        "answer is for another client than " + clientName);
            }
            return answer;
        } catch (ScaleUpException e) {
            throw e;
        } catch (ClosedByInterruptException e) {
            throw new ScaleUpException(Reason.IO, "interrupted while talking to the agent at " + socketPath, e);
        } catch (IOException e) {
            throw new ScaleUpException(Reason.IO, "talking to the agent at " + socketPath + ": " + e.getMessage(), e);
        }
    }

    private SocketChannel connect() throws ScaleUpException, IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.configureBlocking(false);
            if (!ch.connect(address)) {
                ch.finishConnect();
            }
            return ch;
        } catch (ConnectException e) {
            ch.close();
            throw new ScaleUpException(Reason.NO_AGENT, "no agent listens on " + socketPath, e);
        } catch (IOException e) {
            ch.close();
            if (!Files.exists(socketPath, LinkOption.NOFOLLOW_LINKS)) {
                throw new ScaleUpException(Reason.NO_AGENT, "no agent: " + socketPath + " does not exist", e);
            }
            throw e;
        }
    }

    /** Reads up to one line; the answer is the bytes before the first {@code '\n'}. */
    private ScaleUpResponse readAnswer(SocketChannel ch, Selector selector, SelectionKey key, long deadline)
            throws IOException {
        ByteBuffer in = ByteBuffer.allocate(ProtocolLimits.MAX_LINE_BYTES + 1);
        int scanned = 0;
        while (true) {
            int n = ch.read(in);
            if (n < 0) {
                throw new ScaleUpException(Reason.IO, in.position() == 0
                        ? "the agent closed the connection without answering"
                        : "the agent closed the connection in the middle of an answer");
            }
            byte[] buf = in.array();
            for (; scanned < in.position(); scanned++) {
                if (buf[scanned] == '\n') {
                    try {
                        return ScaleUpJson.decodeAnswer(buf, 0, scanned);
                    } catch (MalformedMessageException e) {
                        throw new ScaleUpException(Reason.MALFORMED_ANSWER, "malformed answer: " + e.getMessage());
                    }
                }
            }
            if (!in.hasRemaining()) {
                throw new ScaleUpException(Reason.ANSWER_TOO_LARGE,
                        "answer line longer than " + ProtocolLimits.MAX_LINE_BYTES + " bytes");
            }
            if (n == 0 || System.nanoTime() - deadline > 0) {
                await(selector, key, SelectionKey.OP_READ, deadline);
            }
        }
    }

    private void await(Selector selector, SelectionKey key, int op, long deadline) throws IOException {
        key.interestOps(op);
        long left = deadline - System.nanoTime();
        while (left > 0) {
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            if (Thread.currentThread().isInterrupted()) {
                throw new ScaleUpException(Reason.IO, "interrupted while waiting for the agent");
            }
            if (!selector.selectedKeys().isEmpty()) {
                selector.selectedKeys().clear();
                return;
            }
            left = deadline - System.nanoTime();
        }
        throw new ScaleUpException(Reason.TIMEOUT, "no answer from the agent at " + socketPath + " within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    }
}
