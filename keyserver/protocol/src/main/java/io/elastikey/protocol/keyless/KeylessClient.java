// KeylessClient -- asynchronous Keyless over mutual TLS: pipelined requests on a few connections, with timeouts.
package io.elastikey.protocol.keyless;

import io.elastikey.protocol.net.ClientEventLoops;
import io.elastikey.protocol.net.Transports;
import io.elastikey.protocol.ski.KeyServerClient;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.protocol.ski.SkiTransportException;
import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.elastikey.protocol.tickets.TicketKeySet;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of the Keyless protocol (PROTOCOLS.md section 2), for the edge server ({@code --protocol keyless}),
 * the load generator and tests. It takes the same {@link SkiRequest}s as {@link io.elastikey.protocol.ski.SkiClient}
 * ({@link KeylessRequests} says how they translate) and fails the same ways ({@link KeyServerClient}).
 *
 * <p>Requests are spread round robin over {@code connections} connections and pipelined on each: many in flight,
 * answers matched by request ID in whatever order they come. Connections are made when first needed (or by
 * {@link #connect()}) and again after they close. Each request has a deadline, {@code requestTimeout} from
 * {@link #execute}; each connection sweeps its requests for expired ones a few times per timeout, rather than
 * arming a timer per request (which, from the caller's thread, costs a wake-up of another event loop each time). Of the {@link SkiClientOptions}, the HTTP version and the response
 * size limit do not apply.
 *
 * <p>Error answers become {@link SkiException}s: {@code key not found} is {@code spki not found};
 * {@code internal error} and {@code read error} are {@code overloaded}, which callers may retry on another server;
 * the rest are {@code malformed request}. Thread-safe; futures complete on event-loop threads.
 */
public final class KeylessClient implements KeyServerClient {
    private static final Logger LOG = LoggerFactory.getLogger(KeylessClient.class);

    private final InetSocketAddress server;
    private final SkiClientOptions options;
    private final ClientEventLoops loops;
    private final EventLoopGroup group;
    private final KeylessConnection[] connections;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger outstandingCount = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long timeoutNanos;

    private KeylessClient(SslContext sslContext, InetSocketAddress server, SkiClientOptions options) {
        if (!sslContext.isClient()) {
            throw new IllegalArgumentException("the SslContext is a server context");
        }
        this.server = server;
        this.options = options;
        this.loops = new ClientEventLoops(options.eventLoopGroup(), options.eventLoopThreads(),
                options.preferNativeTransport(), "keyless-client");
        this.group = loops.group();
        this.timeoutNanos = options.requestTimeout().toNanos();
        String serverName = options.serverName() != null ? options.serverName() : server.getHostString();
        this.connections = new KeylessConnection[options.connections()];
        for (int i = 0; i < connections.length; i++) {
            connections[i] = new KeylessConnection(group, sslContext, server, serverName, options.connectTimeout(),
                    options.requestTimeout());
        }
        LOG.info("Keyless client for {}: {} connection(s), {} transport", server, connections.length,
                Transports.name(group));
    }

    /**
     * A client of the Keyless endpoint at {@code server}. Nothing is connected yet; see {@link #connect()}.
     *
     * @param sslContext a client context with our certificate and the CA to trust (ALPN is not used)
     */
    public static KeylessClient create(SslContext sslContext, InetSocketAddress server, SkiClientOptions options) {
        return new KeylessClient(Objects.requireNonNull(sslContext, "sslContext"), Objects.requireNonNull(server,
                "server"), Objects.requireNonNull(options, "options"));
    }

    @Override
    public CompletableFuture<byte[]> execute(SkiRequest request) {
        KeylessRequests.Translated translated;
        try {
            translated = KeylessRequests.translate(Objects.requireNonNull(request, "request"));
        } catch (SkiException e) {
            return CompletableFuture.failedFuture(e);
        }
        return send(translated.opcode().code(), translated.ski(), translated.digest(), translated.payload());
    }

    /**
     * Opcode {@link KeylessOpcode#TICKET_KEYS}. A server that refuses this client the keys answers {@code key not
     * found}; one without the extension should answer {@code bad opcode}: both fail the future with a message that
     * says which.
     */
    @Override
    public CompletableFuture<TicketKeySet> ticketKeys() {
        return send(KeylessOpcode.TICKET_KEYS.code(), null, null, new byte[0]).handle((json, failure) -> {
            if (failure == null) {
                return TicketKeySet.fromJson(json);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            KeylessError answered = cause instanceof KeylessAnswerException answer ? answer.keylessError() : null;
            if (answered == KeylessError.KEY_NOT_FOUND) {
                throw new IllegalStateException(server + " refused the ticket keys: this client is not granted them"
                        + " ('allow tickets' in the key server's policy)", cause);
            }
            if (answered == KeylessError.BAD_OPCODE) {
                throw new IllegalStateException(server + " does not serve ticket keys over Keyless (opcode 0x"
                        + Integer.toHexString(KeylessOpcode.TICKET_KEYS.code()) + " unknown to it)", cause);
            }
            throw cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
        });
    }

    /** A ping: the future holds the echoed payload. */
    public CompletableFuture<byte[]> ping(byte[] payload) {
        return send(KeylessOpcode.PING.code(), null, null, payload.clone());
    }

    /**
     * Sends a request with any opcode byte and items, for tests of a server: the future holds the answer's payload,
     * or fails with the {@link SkiException} an error answer maps to ({@link KeylessAnswerException} carries the
     * exact {@link KeylessError}).
     */
    public CompletableFuture<byte[]> send(int opcode, byte[] ski, byte[] digest, byte[] payload) {
        KeylessPending pending = new KeylessPending(opcode, ski, digest, payload, System.nanoTime() + timeoutNanos);
        if (closed.get()) {
            pending.fail(new SkiTransportException(Kind.CLIENT_CLOSED, "client closed"));
            return pending.future();
        }
        if (outstandingCount.incrementAndGet() > options.maxOutstanding()) {
            outstandingCount.decrementAndGet();
            pending.fail(new SkiTransportException(Kind.BACKLOG_FULL, options.maxOutstanding()
                    + " requests outstanding"));
            return pending.future();
        }
        KeylessConnection connection = connections[Math.floorMod(next.getAndIncrement(), connections.length)];
        pending.future().whenComplete((result, failure) -> outstandingCount.decrementAndGet());
        if (closed.get()) {
            pending.fail(new SkiTransportException(Kind.CLIENT_CLOSED, "client closed"));
            return pending.future();
        }
        connection.send(pending);
        return pending.future();
    }

    @Override
    public CompletableFuture<Void> connect() {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new SkiTransportException(Kind.CLIENT_CLOSED, "client closed"));
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[connections.length];
        for (int i = 0; i < connections.length; i++) {
            all[i] = connections[i].channel();
        }
        return CompletableFuture.allOf(all);
    }

    @Override
    public int outstanding() {
        return outstandingCount.get();
    }

    @Override
    public int connections() {
        int up = 0;
        for (KeylessConnection connection : connections) {
            up += connection.isUp() ? 1 : 0;
        }
        return up;
    }

    @Override
    public InetSocketAddress server() {
        return server;
    }

    public SkiClientOptions options() {
        return options;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (KeylessConnection connection : connections) {
            connection.close();
        }
        loops.close();
    }

    @Override
    public String toString() {
        return "KeylessClient[" + server + ", " + connections.length + " connection(s)]";
    }
}
