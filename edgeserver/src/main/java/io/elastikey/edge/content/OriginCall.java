// OriginCall -- one request to the origin, from submission to its answer or failure.
package io.elastikey.edge.content;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * The state of one fetch. It owns a retained view of the client's body until it ends; each attempt writes a fresh
 * request over that body and the prepared headers (no copy of either), so a retry on another connection sends
 * the same bytes. It ends exactly once, by {@link #complete} or {@link #fail}; whatever arrives later is released.
 *
 * <p>Confined to its pool's event loop, except {@link #promise}, which callers read from anywhere.
 */
final class OriginCall {
    final CompletableFuture<FullHttpResponse> promise = new CompletableFuture<>();
    private final HttpMethod method;
    private final String uri;
    private final HttpHeaders headers;
    private ByteBuf body;
    private ScheduledFuture<?> timeout;
    /** The connection carrying the current attempt, or null. */
    Channel channel;
    /** Whether the current attempt went out on a connection an earlier request had used. */
    boolean reused;
    boolean retried;

    OriginCall(HttpMethod method, String uri, HttpHeaders headers, ByteBuf body) {
        this.method = method;
        this.uri = uri;
        this.headers = headers;
        this.body = body;
    }

    /** GET and HEAD may be sent twice without harm, so a call on a connection that went stale is retried. */
    boolean idempotent() {
        return method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD);
    }

    HttpMethod method() {
        return method;
    }

    boolean isDone() {
        return body == null;
    }

    boolean hasTimeout() {
        return timeout != null;
    }

    void timeout(ScheduledFuture<?> timeout) {
        this.timeout = timeout;
    }

    /** A request for one attempt; writing it releases only its own view of the body. */
    FullHttpRequest newAttempt() {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri, body.retainedDuplicate(), headers,
                EmptyHttpHeaders.INSTANCE);
    }

    /** Hands {@code response} to the caller, or releases it when the call has already ended. */
    void complete(FullHttpResponse response) {
        if (!end()) {
            response.release();
            return;
        }
        if (!promise.complete(response)) {
            response.release(); // the caller cancelled the future
        }
    }

    void fail(OriginException failure) {
        if (end()) {
            promise.completeExceptionally(failure);
        }
    }

    private boolean end() {
        if (body == null) {
            return false;
        }
        body.release();
        body = null;
        channel = null;
        if (timeout != null) {
            timeout.cancel(false);
        }
        return true;
    }
}
