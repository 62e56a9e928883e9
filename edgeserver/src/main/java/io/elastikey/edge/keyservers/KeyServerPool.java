// KeyServerPool -- the edge's private-key operations over SKI, spread over several key servers, with failover.
package io.elastikey.edge.keyservers;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.elastikey.protocol.ski.KeyServerClient;
import io.elastikey.protocol.tickets.TicketKeySet;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.protocol.ski.SkiTransportException;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.EventExecutor;

/**
 * Makes one SKI request per handshake reliable across several key servers.
 *
 * <p><b>Choosing.</b> Each request goes to the endpoint with the fewest requests outstanding among those whose
 * breaker is closed, round robin among equals (the scan starts one further each time). Outstanding counts follow
 * each server's speed, so a slow server gets less, and nothing is shared between requests but one counter.
 * Only when no breaker is closed may a user request take an open breaker's half-open trial; when none can be had,
 * {@link #execute} fails at once with a {@link NoKeyServerException} listing every endpoint and why it is out.
 *
 * <p><b>Retrying.</b> A failure that is the server's (no answer, or {@code 503 overloaded}) counts against its
 * breaker and is retried on another endpoint while attempts ({@code maxAttempts}) and the operation's
 * {@code deadline} allow; a verdict ({@code spki not found}, {@code request denied}, ...) is final and counts as a
 * sign of life. The rules live in {@link Endpoint#record}, the attempts in {@link Operation}.
 *
 * <p><b>Breakers and health checks.</b> One {@link CircuitBreaker} per endpoint (N failures in a row open it; one
 * trial after the open duration, which doubles after each failed trial) and one {@link HealthCheck} that probes it
 * every interval, so an idle dead server is opened and a returning one closed without risking user requests.
 *
 * <p><b>Threads.</b> Nothing here blocks: the SKI clients, probes and deadline timers all run on the caller's event
 * loop group, and futures complete on its threads (or on the calling thread, when an attempt fails at once). The pool
 * never shuts the group down. Logging: one WARN when a breaker opens, one INFO when it closes; never per request,
 * never request data. Thread-safe.
 */
public final class KeyServerPool implements AutoCloseable {
    private final List<KeyServerEndpoint> ids;
    private final Endpoint[] endpoints;
    private final HealthCheck[] healthChecks;
    private final KeyServerPoolOptions options;
    private final KeyServerPoolListener listener;
    private final EventLoopGroup group;
    private final long deadlineNanos;
    private final long attemptTimeoutNanos;
    private final AtomicInteger cursor = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    private KeyServerPool(List<KeyServerEndpoint> ids, SslContext sslContext, EventLoopGroup group,
            KeyServerPoolOptions options, KeyServerPoolListener listener) {
        this.ids = List.copyOf(ids);
        this.options = options;
        this.listener = GuardedListener.of(listener);
        this.group = group;
        this.deadlineNanos = options.deadline().toNanos();
        this.attemptTimeoutNanos = options.attemptTimeout().toNanos();
        this.endpoints = new Endpoint[this.ids.size()];
        this.healthChecks = new HealthCheck[endpoints.length];
        SkiClientOptions base = SkiClientOptions.builder().httpVersion(options.httpVersion())
                .connections(options.connectionsPerEndpoint()).connectTimeout(options.connectTimeout())
                .requestTimeout(options.attemptTimeout()).eventLoopGroup(group).build();
        for (int i = 0; i < endpoints.length; i++) {
            KeyServerEndpoint id = this.ids.get(i);
            KeyServerClient client = options.protocol().client(sslContext, id.address(),
                    base.mutate().serverName(id.serverName()).build());
            endpoints[i] = new Endpoint(i, id, client, options, System::nanoTime, this.listener);
            healthChecks[i] = new HealthCheck(endpoints[i], group.next(), options.healthCheckInterval().toNanos());
        }
        for (HealthCheck check : healthChecks) {
            check.start();
        }
    }

    /**
     * A pool over {@code endpoints}, probing them at once. Nothing blocks; connections are made by the first probes.
     *
     * @param endpoints  1 to 64 key servers, no address twice
     * @param sslContext a client context with the edge's certificate and the key servers' CA, built for the options'
     *                   HTTP version (e.g. {@code SkiTls.clientContext(..., options.httpVersion())})
     * @param group      the edge's event loops, shared: the pool starts no threads and never shuts them down
     * @param listener   metrics; {@link KeyServerPoolListener#NONE} for none. An exception it throws is logged
     *                   (rarely) and otherwise ignored
     */
    public static KeyServerPool create(List<KeyServerEndpoint> endpoints, SslContext sslContext,
            EventLoopGroup group, KeyServerPoolOptions options, KeyServerPoolListener listener) {
        Objects.requireNonNull(endpoints, "endpoints");
        Objects.requireNonNull(sslContext, "sslContext");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(listener, "listener");
        if (endpoints.isEmpty() || endpoints.size() > Long.SIZE) {
            throw new IllegalArgumentException("a pool needs 1..64 endpoints, not " + endpoints.size());
        }
        if (endpoints.stream().map(KeyServerEndpoint::address).distinct().count() != endpoints.size()) {
            throw new IllegalArgumentException("an endpoint is listed twice: " + endpoints);
        }
        return new KeyServerPool(endpoints, sslContext, group, options, listener);
    }

    /**
     * Sends {@code request} to a key server, retrying elsewhere as the class comment says. The future holds the
     * output, or fails with the key server's {@link io.elastikey.protocol.ski.SkiException} verdict, the last
     * attempt's {@link SkiTransportException} (kind {@code TIMEOUT} when the deadline passed), a
     * {@link NoKeyServerException}, or {@code CLIENT_CLOSED} once the pool is closed. Never blocks.
     */
    public CompletableFuture<byte[]> execute(SkiRequest request) {
        Objects.requireNonNull(request, "request");
        Operation operation = new Operation(this, request);
        operation.start();
        return operation.result;
    }

    /**
     * The deployment's session-ticket keys, from the first key server (breaker closed, in the order given) that
     * gives them, in either protocol ({@link KeyServerClient#ticketKeys}). Fails when none does. Never blocks.
     */
    public CompletableFuture<TicketKeySet> ticketKeys() {
        return ticketKeysFrom(0, null);
    }

    private CompletableFuture<TicketKeySet> ticketKeysFrom(int first, Throwable last) {
        for (int i = first; i < endpoints.length; i++) {
            if (endpoints[i].breaker.isClosed()) {
                int next = i + 1;
                return endpoints[i].client.ticketKeys()
                        .handle((set, failure) -> failure == null ? CompletableFuture.completedFuture(set)
                                : ticketKeysFrom(next, failure))
                        .thenCompose(f -> f);
            }
        }
        return CompletableFuture.failedFuture(last != null ? last
                : new IllegalStateException("no key server available"));
    }

    /** Every endpoint as it stands now, in the order given. */
    public List<EndpointStatus> status() {
        List<EndpointStatus> all = new ArrayList<>(endpoints.length);
        for (Endpoint endpoint : endpoints) {
            all.add(endpoint.status());
        }
        return all;
    }

    /** Whether some endpoint's breaker is closed: the pool's readiness. */
    public boolean anyAvailable() {
        for (Endpoint endpoint : endpoints) {
            if (endpoint.breaker.isClosed()) {
                return true;
            }
        }
        return false;
    }

    public List<KeyServerEndpoint> endpoints() {
        return ids;
    }

    public KeyServerPoolOptions options() {
        return options;
    }

    /**
     * Stops the health checks and closes every SKI client, which fails the requests in flight, and so their
     * operations, with {@code CLIENT_CLOSED}; later calls to {@link #execute} fail the same way. Idempotent; does not
     * block and does not touch the event loop group.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (HealthCheck check : healthChecks) {
            check.stop();
        }
        for (Endpoint endpoint : endpoints) {
            endpoint.client.close();
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** The closed endpoint with the fewest outstanding requests, skipping {@code excluded} (a bit per index). */
    Endpoint pickClosed(long excluded) {
        int n = endpoints.length;
        int index = (cursor.getAndIncrement() & Integer.MAX_VALUE) % n;
        Endpoint best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++, index = index + 1 == n ? 0 : index + 1) {
            Endpoint candidate = endpoints[index];
            if ((excluded & 1L << index) == 0 && candidate.breaker.isClosed()) {
                int load = candidate.client.outstanding();
                if (load < bestLoad) {
                    best = candidate;
                    bestLoad = load;
                }
            }
        }
        return best;
    }

    /** An endpoint, not in {@code excluded}, whose breaker granted the caller its half-open trial; or null. */
    Endpoint pickTrial(long excluded) {
        for (Endpoint candidate : endpoints) {
            if ((excluded & 1L << candidate.index) == 0 && candidate.breaker.tryTrial()) {
                return candidate;
            }
        }
        return null;
    }

    KeyServerPoolListener listener() {
        return listener;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    long attemptTimeoutNanos() {
        return attemptTimeoutNanos;
    }

    EventExecutor timerExecutor() {
        return group.next();
    }

    static SkiTransportException closedException() {
        return new SkiTransportException(SkiTransportException.Kind.CLIENT_CLOSED, "the key-server pool is closed");
    }

    @Override
    public String toString() {
        return "KeyServerPool" + ids;
    }
}
