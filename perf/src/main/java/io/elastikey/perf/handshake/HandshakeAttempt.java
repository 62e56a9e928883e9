// HandshakeAttempt -- one connection of the load: connect, handshake, maybe one GET, close; then report.
package io.elastikey.perf.handshake;

import java.util.concurrent.TimeUnit;

import io.elastikey.perf.handshake.HandshakeTls.Resumption;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * The handler of one connection, and its record once it ends. The pipeline, added when the channel registers:
 *
 * <pre>
 *   tls        SslHandler        the client side of the handshake
 *   http       HttpClientCodec   only with --request
 *   attempt    this              HANDSHAKE, then RESPONSE (with --request), then DONE: close
 * </pre>
 *
 * The listener learns the outcome once the channel has closed, whichever way it ended; every attempt ends, bounded
 * by the connect and handshake timeouts and the response timer.
 *
 * <p><b>Session tickets.</b> A TLS 1.3 server sends its NewSessionTicket messages after the handshake, and a Netty
 * server with BoringSSL (the edge among them) sends them only with its next write: the first response, or the
 * close_notify answering the client's. The BoringSSL client ignores tickets that arrive after its own close_notify.
 * So under TLS 1.3 a connection gets tickets only by reading a response, which is why resuming under TLS 1.3 needs
 * {@code --request}: the tickets come before the response, and BoringSSL uses each TLS 1.3 session once, so every
 * connection collects the tickets its successors will offer.
 *
 * <p>Latency is the time from {@link #startNanos()} (the connect, or in open loop its intended time) to the
 * handshake's completion on the client: TCP connect plus TLS handshake, not the request.
 */
final class HandshakeAttempt extends ChannelInboundHandlerAdapter implements ChannelFutureListener, Runnable {
    private enum Stage { HANDSHAKE, RESPONSE, DONE }

    private final HandshakeClient client;
    private final HandshakeClient.Listener listener;
    private final long startNanos;
    private final boolean measured;
    private Stage stage = Stage.HANDSHAKE;
    private ChannelFuture connect;
    private ChannelHandlerContext ctx;
    private SslHandler tls;
    private ScheduledFuture<?> timer;
    private long handshakeNanos;
    private Resumption resumption;
    private String failure;
    private boolean ended;

    HandshakeAttempt(HandshakeClient client, long startNanos, boolean measured, HandshakeClient.Listener listener) {
        this.client = client;
        this.startNanos = startNanos;
        this.measured = measured;
        this.listener = listener;
    }

    /** Called by the client right after {@code connect}: the listener hears of this attempt when its channel closes. */
    void connecting(ChannelFuture connectFuture) {
        this.connect = connectFuture;
        connectFuture.channel().closeFuture().addListener(this);
        connectFuture.addListener(connected -> {
            if (!connected.isSuccess() && !connectFuture.channel().isRegistered()) {
                end(); // never registered (no event loop, no file descriptor): its close future never completes
            }
        });
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        tls = client.newSslHandler(ctx.alloc());
        ctx.pipeline().addBefore(ctx.name(), "tls", tls);
        if (client.requestPath() != null) {
            ctx.pipeline().addBefore(ctx.name(), "http", new HttpClientCodec());
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (!(event instanceof SslHandshakeCompletionEvent done) || stage != Stage.HANDSHAKE) {
            return;
        }
        if (!done.isSuccess()) {
            fail(FailureKinds.of(done.cause())); // the SslHandler closes the channel too
            return;
        }
        handshakeNanos = System.nanoTime();
        resumption = client.tls().completed(tls.engine());
        if (client.requestPath() != null) {
            stage = Stage.RESPONSE;
            timer = ctx.executor().schedule(this, client.timeoutMillis(), TimeUnit.MILLISECONDS);
            ctx.writeAndFlush(client.newRequest(tls.engine().getPeerHost()), ctx.voidPromise());
        } else {
            finish(null);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (stage != Stage.RESPONSE) {
                return;
            }
            if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.SUCCESS) {
                fail("HTTP_" + response.status().code());
            } else if (msg instanceof LastHttpContent) {
                finish(null);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (stage == Stage.RESPONSE) {
            fail("CLOSED_BEFORE_RESPONSE");
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(FailureKinds.of(cause));
    }

    /** The response timer. */
    @Override
    public void run() {
        if (stage == Stage.RESPONSE) {
            fail("RESPONSE_TIMEOUT");
        }
    }

    private void fail(String kind) {
        if (stage != Stage.DONE) {
            finish(kind);
        }
    }

    private void finish(String kind) {
        stage = Stage.DONE;
        failure = kind;
        if (timer != null) {
            timer.cancel(false);
        }
        ctx.close();
    }

    /** The channel closed: now the outcome is final. Runs on the channel's event loop (or the connecting thread). */
    @Override
    public void operationComplete(ChannelFuture closed) {
        end();
    }

    private void end() {
        if (!markEnded()) {
            return;
        }
        if (handshakeNanos == 0 && failure == null) {
            failure = connect.isDone() && connect.cause() != null ? FailureKinds.of(connect.cause())
                    : "CLOSED_DURING_HANDSHAKE";
        }
        stage = Stage.DONE;
        client.ended();
        listener.finished(this);
    }

    /** True the first time only: a connect that failed before registering is reported by its own listener. */
    private synchronized boolean markEnded() {
        boolean first = !ended;
        ended = true;
        return first;
    }

    long startNanos() {
        return startNanos;
    }

    boolean measured() {
        return measured;
    }

    /** When the handshake completed, or 0 when it did not. */
    long handshakeNanos() {
        return handshakeNanos;
    }

    /** Full or resumed; null when the handshake did not complete. */
    Resumption resumption() {
        return resumption;
    }

    /** The kind of failure ({@link FailureKinds}), or null. A failure after the handshake leaves it counted. */
    String failure() {
        return failure;
    }
}
