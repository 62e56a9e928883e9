// OriginClient -- pooled HTTP/1.1 client to the one origin the edge fronts, on the caller's event loop.
package io.elastikey.edge.content;

import io.elastikey.protocol.net.RateLimitedLog;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Reverse-proxies requests to one plain-HTTP origin. Each event loop that calls {@link #fetch} gets its own
 * {@link OriginPool} of keep-alive connections, registered on that loop, so a proxied request and its answer stay
 * on the thread of the client connection that asked: no locks, no thread switch. The cost is that connections are
 * not shared across loops, so the limits of {@link OriginOptions} are per loop.
 *
 * <p>Failures never hang and never throw: the future fails with an {@link OriginException} carrying the status for
 * the client (502, 503, 504), and one WARN line per 10 s sums them up. Thread-safe.
 */
public final class OriginClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OriginClient.class);

    private final InetSocketAddress origin;
    private final String authority;
    private final OriginOptions options;
    private final RateLimitedLog warnings = new RateLimitedLog(LOG, Level.WARN, 1, Duration.ofSeconds(10));
    private final Map<EventLoop, OriginPool> pools = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** A client of {@code origin} (may be unresolved: resolved at each connect). Opens nothing until used. */
    public OriginClient(InetSocketAddress origin, OriginOptions options) {
        this.origin = origin;
        this.options = options;
        this.authority = origin.getPort() == 80 ? origin.getHostString() : origin.getHostString() + ":"
                + origin.getPort();
    }

    public InetSocketAddress origin() {
        return origin;
    }

    public OriginOptions options() {
        return options;
    }

    /**
     * Sends {@code request} to the origin on a connection of {@code loop}'s pool. The caller keeps ownership of
     * {@code request} and may release it as soon as this returns; the client keeps its own view of the body.
     * Hop-by-hop headers are dropped and forwarding headers set (see {@link ProxyHeaders}); {@code client} is the
     * address for {@code X-Forwarded-For}.
     *
     * @return the origin's complete answer, which the caller must release; completed on {@code loop}. Fails with an
     *     {@link OriginException}.
     */
    public CompletableFuture<FullHttpResponse> fetch(FullHttpRequest request, SocketAddress client, EventLoop loop) {
        ByteBuf body = request.content().retainedDuplicate();
        HttpHeaders headers = ProxyHeaders.forOrigin(request, client, authority, body.readableBytes());
        OriginCall call = new OriginCall(request.method(), ProxyHeaders.originForm(request.uri()), headers, body);
        if (closed) {
            call.fail(new OriginException(502, "origin client is closed"));
            return call.promise;
        }
        OriginPool pool = pools.computeIfAbsent(loop, l -> new OriginPool(l, origin, options, warnings));
        if (loop.inEventLoop()) {
            pool.submit(call);
        } else {
            try {
                loop.execute(() -> pool.submit(call));
            } catch (RejectedExecutionException e) {
                call.fail(new OriginException(502, "event loop is shutting down"));
            }
        }
        return call.promise;
    }

    /** Closes idle connections and fails waiting calls, on each loop; calls in flight finish. Idempotent. */
    @Override
    public void close() {
        closed = true;
        pools.forEach((loop, pool) -> {
            try {
                loop.execute(pool::close);
            } catch (RejectedExecutionException e) {
                // the loop is gone, and its connections with it
            }
        });
    }
}
