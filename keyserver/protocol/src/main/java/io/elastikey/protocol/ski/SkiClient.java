// SkiClient -- asynchronous SKI over mutual TLS: HTTP/2 streams or HTTP/1.1 keep-alive, pooled, with timeouts.
package io.elastikey.protocol.ski;

import io.elastikey.protocol.net.ClientEventLoops;
import io.elastikey.protocol.net.Transports;
import io.elastikey.protocol.tickets.TicketKeySet;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * The client side of SKI (PROTOCOLS.md section 1), for the edge server, the load generator and tests.
 *
 * <p>{@link #execute} sends one request and returns a future of the output. It completes exceptionally with a
 * {@link SkiException} when the server answered one of the protocol's errors (its {@link SkiError} read from the text,
 * or from the status when the body names none), or with a {@link SkiTransportException} when no such answer came:
 * connect failure, lost connection, timeout, full backlog, a body that is no SKI answer, or a closed client. The
 * distinction is the caller's retry rule: transport failures may be retried elsewhere, SKI errors are final.
 *
 * <p>How requests travel is the {@link SkiClientOptions}' business: over HTTP/2, on streams spread round robin over
 * {@code connections} connections ({@link Http2Pool}); over HTTP/1.1, one at a time on each of {@code connections}
 * keep-alive connections, the rest waiting in line ({@link Http1Pool}). Connections are made when first needed (or by
 * {@link #connect()}) and made again after they close. Every request has a deadline, {@code requestTimeout} from
 * {@code execute}, waiting included; at most {@code maxOutstanding} requests are accepted at a time.
 *
 * <p>Thread-safe. Futures complete on Netty event-loop threads: callbacks must not block; hand slow work elsewhere.
 * Nothing about requests or answers is ever logged.
 */
public final class SkiClient implements KeyServerClient {
    private static final Logger LOG = LoggerFactory.getLogger(SkiClient.class);
    private static final String JSON = HttpHeaderValues.APPLICATION_JSON.toString();
    /** Room for the largest common request (RSA-4096 input, 684 base64 characters) without growing the buffer. */
    private static final int REQUEST_BUFFER_SIZE = 1024;

    private final InetSocketAddress server;
    private final SkiClientOptions options;
    private final ClientEventLoops loops;
    private final EventLoopGroup group;
    private final ExchangePool pool;
    private final long timeoutNanos;
    private final AtomicInteger outstandingCount = new AtomicInteger();
    private final Set<Exchange<?>> outstanding = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    private SkiClient(SslContext sslContext, InetSocketAddress server, SkiClientOptions options) {
        if (!sslContext.isClient()) {
            throw new IllegalArgumentException("the SslContext is a server context");
        }
        this.server = server;
        this.options = options;
        this.loops = new ClientEventLoops(options.eventLoopGroup(), options.eventLoopThreads(),
                options.preferNativeTransport(), "ski-client");
        this.group = loops.group();
        this.timeoutNanos = options.requestTimeout().toNanos();
        Connector connector = new Connector(group, sslContext, server, options);
        this.pool = options.httpVersion() == SkiHttpVersion.HTTP_2
                ? new Http2Pool(connector, options) : new Http1Pool(connector, options);
        LOG.info("SKI client for {}: HTTP/{}, {} connection(s), {} transport, TLS by {}", server,
                options.httpVersion().label(), options.connections(), Transports.name(group),
                sslContext instanceof ReferenceCountedOpenSslContext ? "BoringSSL" : "JDK");
    }

    /**
     * A client of the key server at {@code server}. Nothing is connected yet; see {@link #connect()}.
     *
     * @param sslContext a client context with our certificate and the CA to trust, e.g. from {@link SkiTls}; its
     *                   ALPN offer must include the options' HTTP version
     */
    public static SkiClient create(SslContext sslContext, InetSocketAddress server, SkiClientOptions options) {
        return new SkiClient(Objects.requireNonNull(sslContext, "sslContext"), Objects.requireNonNull(server, "server"),
                Objects.requireNonNull(options, "options"));
    }

    /** Sends {@code request}; the future holds the decoded output. See the class comment for failures. */
    @Override
    public CompletableFuture<byte[]> execute(SkiRequest request) {
        Objects.requireNonNull(request, "request");
        return start(new Exchange<>("POST", "/", JSON, alloc -> {
            ByteBuf body = alloc.buffer(REQUEST_BUFFER_SIZE);
            SkiJson.encodeRequest(request, body);
            return body;
        }, SkiJson::decodeAnswer));
    }

    /** Posts {@code body} as it is to {@code /} as JSON and returns the answer unread: for tests of a server. */
    public CompletableFuture<SkiResponse> post(byte[] body) {
        return exchange("POST", "/", JSON, body);
    }

    /**
     * Sends any request (method, path, content type, body) and returns the answer unread, so a server's tests can
     * reach every refusal through the same connections: wrong method, path or content type, bodies of any size.
     */
    public CompletableFuture<SkiResponse> exchange(String method, String path, String contentType, byte[] body) {
        byte[] copy = body.clone();
        return start(new Exchange<>(method, path, contentType, alloc -> Unpooled.wrappedBuffer(copy),
                (status, content) -> new SkiResponse(status, ByteBufUtil.getBytes(content))));
    }

    /** {@code GET /ticket-keys}; any status but 200 fails the future with the status in its message. */
    @Override
    public CompletableFuture<TicketKeySet> ticketKeys() {
        return exchange("GET", TicketKeySet.PATH, JSON, new byte[0]).thenApply(answer -> {
            if (answer.status() != 200) {
                throw new IllegalStateException(server + " answered " + answer.status() + " to " + TicketKeySet.PATH);
            }
            return TicketKeySet.fromJson(answer.body());
        });
    }

    /** Makes every connection now, so that the first requests do not pay for handshakes; fails if one cannot be. */
    @Override
    public CompletableFuture<Void> connect() {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new SkiTransportException(Kind.CLIENT_CLOSED, "client closed"));
        }
        return pool.connectAll();
    }

    /** Requests accepted and not yet completed. */
    @Override
    public int outstanding() {
        return outstandingCount.get();
    }

    /** Connections up at this moment. */
    @Override
    public int connections() {
        return pool.connected();
    }

    public SkiClientOptions options() {
        return options;
    }

    @Override
    public InetSocketAddress server() {
        return server;
    }

    private <T> CompletableFuture<T> start(Exchange<T> exchange) {
        if (closed.get()) {
            exchange.fail(Kind.CLIENT_CLOSED, "client closed", null);
            return exchange.future;
        }
        if (outstandingCount.incrementAndGet() > options.maxOutstanding()) {
            outstandingCount.decrementAndGet();
            exchange.fail(Kind.BACKLOG_FULL, options.maxOutstanding() + " requests outstanding", null);
            return exchange.future;
        }
        outstanding.add(exchange);
        EventExecutor timer = group.next();
        ScheduledFuture<?> deadline = timer.schedule(() -> exchange.fail(Kind.TIMEOUT,
                "no answer within " + options.requestTimeout().toMillis() + " ms", null),
                timeoutNanos, TimeUnit.NANOSECONDS);
        exchange.future.whenComplete((result, failure) -> {
            outstanding.remove(exchange);
            outstandingCount.decrementAndGet();
            deadline.cancel(false);
            if (exchange.future.isCancelled()) {
                exchange.abandon();
            }
        });
        if (closed.get()) { // close() ran after our first check and may have missed this exchange
            exchange.fail(Kind.CLIENT_CLOSED, "client closed", null);
            return exchange.future;
        }
        pool.submit(exchange);
        return exchange.future;
    }

    /**
     * Fails every outstanding request with {@link Kind#CLIENT_CLOSED}, closes the connections and, unless the event
     * loop group was the caller's, shuts it down and waits for it (briefly). Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Exchange<?> exchange : outstanding) {
            exchange.fail(Kind.CLIENT_CLOSED, "client closed", null);
        }
        pool.close();
        loops.close();
    }

    @Override
    public String toString() {
        return "SkiClient[" + server + ", " + options + "]";
    }
}
