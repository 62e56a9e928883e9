// GiveBackWatch -- holds a watch connection to scaleupd open and hands each give-back request to a listener.
package io.elastikey.scaleup.socket;

import io.elastikey.scaleup.GiveBackRequest;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.protocol.MalformedMessageException;
import io.elastikey.scaleup.protocol.ProtocolLimits;
import io.elastikey.scaleup.protocol.ScaleUpJson;
import io.elastikey.scaleup.protocol.ScaleUpRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The listening half of the rescale protocol. Every other call is a request and its answer on a fresh connection;
 * the agent's requests to give memory back come the other way, so a client that wants them keeps one connection
 * open: it sends {@code {"op":"watch","client":..}}, reads the answer (the grant, as for {@code status}), and from
 * then on reads {@code give_back} lines ({@link GiveBackRequest}) until the connection ends.
 *
 * <p>One daemon thread does the blocking reads and calls the listener on that thread, one request at a time; the
 * listener should hand the work to its own thread if it is long (a store's resize is). When the agent goes away (a
 * restart, a SIGKILL) the thread reconnects after {@code retry}, doubling up to a minute: give-back requests sent
 * while nobody watched are lost, and the agent lowers that grant itself at the deadline, which is the protocol's
 * answer to a client that does not listen. A line that is not a give-back request is logged and skipped.
 *
 * <p>Pure Java on purpose, whichever client ({@code NativeScaleUpClient} or {@link SocketScaleUpClient}) makes the
 * calls: the watch is a long-lived blocking read that needs no native code; libscaleup has the same in C
 * ({@code scaleup_watch_open}, {@code scaleup_watch_next}) for C clients.
 */
public final class GiveBackWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GiveBackWatch.class);
    private static final long MAX_RETRY_MS = 60_000;

    private final Path socketPath;
    private final String client;
    private final Consumer<GiveBackRequest> listener;
    private final long retryMs;
    private final Thread thread;
    private volatile SocketChannel channel;
    private volatile boolean closed;
    private volatile boolean watching;

    private GiveBackWatch(Path socketPath, String client, Consumer<GiveBackRequest> listener, Duration retry) {
        this.socketPath = socketPath;
        this.client = client;
        this.listener = listener;
        this.retryMs = Math.max(1, retry.toMillis());
        this.thread = new Thread(this::run, "scaleup-watch-" + client);
        this.thread.setDaemon(true);
    }

    /**
     * Starts watching for {@code client}'s give-back requests.
     *
     * @param socketPathOrNull the agent's socket; {@code null} for {@link SocketScaleUpClient#defaultSocketPath()}
     * @param retry the first wait before reconnecting to an agent that went away
     */
    public static GiveBackWatch start(Path socketPathOrNull, String client, Consumer<GiveBackRequest> listener,
                                      Duration retry) {
        String problem = ProtocolLimits.clientNameProblem(client);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        Objects.requireNonNull(listener, "listener");
        Path path = socketPathOrNull != null ? socketPathOrNull : SocketScaleUpClient.defaultSocketPath();
        GiveBackWatch w = new GiveBackWatch(path, client, listener, retry);
        w.thread.start();
        return w;
    }

    /** Whether the watch connection is open and the agent has answered it. */
    public boolean watching() {
        return watching;
    }

    private void run() {
        long wait = retryMs;
        while (!closed) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                channel = ch;
                if (closed) {
                    return;
                }
                ch.connect(UnixDomainSocketAddress.of(socketPath));
                ch.write(ByteBuffer.wrap(ScaleUpJson.encodeRequest(ScaleUpRequest.watch(client))));
                LineReader lines = new LineReader(ch);
                ScaleUpResponse answer = ScaleUpJson.decodeAnswer(lines.next(), 0, lines.length());
                if (answer.status() == ScaleUpResponse.Status.ERROR) {
                    log.warn("scale-up agent refused to watch for client {}: {}", client, answer.message());
                } else {
                    watching = true;
                    wait = retryMs;
                    log.info("watching scale-up agent {} for give-back requests to client {} (grant {} MiB)",
                            socketPath, client, answer.grantedMb());
                    readRequests(lines);
                }
            } catch (IOException | MalformedMessageException e) {
                if (!closed) {
                    log.debug("watch connection to {} for client {} ended: {}", socketPath, client, e.toString());
                }
            } finally {
                watching = false;
            }
            sleep(wait);
            wait = Math.min(wait * 2, MAX_RETRY_MS);
        }
    }

    private void readRequests(LineReader lines) throws IOException {
        while (!closed) {
            byte[] line = lines.next();
            GiveBackRequest r;
            try {
                r = ScaleUpJson.decodeGiveBack(line, 0, lines.length());
            } catch (MalformedMessageException e) {
                log.warn("skipping a line on the watch connection for client {}: {}", client, e.getMessage());
                continue;
            }
            if (!r.client().equals(client)) {
                log.warn("skipping a give-back request for client {} on the watch of {}", r.client(), client);
                continue;
            }
            try {
                listener.accept(r);
            } catch (RuntimeException e) {
                log.warn("give-back listener of client {} failed", client, e);
            }
        }
    }

    private void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            closed = true;
        }
    }

    /** Closes the connection and stops the thread. Idempotent. */
    @Override
    public void close() {
        closed = true;
        SocketChannel ch = channel;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lines of at most 4096 bytes from a blocking channel; a longer one ends the connection. */
    private static final class LineReader {
        private final SocketChannel ch;
        private final ByteBuffer buf = ByteBuffer.allocate(ProtocolLimits.MAX_LINE_BYTES + 1);
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private int length;

        LineReader(SocketChannel ch) {
            this.ch = ch;
            buf.flip();
        }

        /** The next line without its {@code '\n'}; valid up to {@link #length()}. */
        byte[] next() throws IOException {
            line.reset();
            while (true) {
                while (buf.hasRemaining()) {
                    byte b = buf.get();
                    if (b == '\n') {
                        length = line.size();
                        return line.toByteArray();
                    }
                    if (line.size() == ProtocolLimits.MAX_LINE_BYTES) {
                        throw new IOException("a line longer than " + ProtocolLimits.MAX_LINE_BYTES + " bytes");
                    }
                    line.write(b);
                }
                buf.clear();
                int n = ch.read(buf);
                buf.flip();
                if (n < 0) {
                    throw new IOException("the agent closed the watch connection");
                }
            }
        }

        int length() {
            return length;
        }
    }
}
