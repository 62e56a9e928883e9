package io.elastikey.edge.http;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.admin.EdgeMetrics.FailureReason;
import io.elastikey.edge.tls.RemoteKeyMethod;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.internal.tcnative.SSL;

import javax.net.ssl.SSLEngine;

/**
 * Counts each connection's handshake as full or resumed and times it from the accept, sends the alert for a
 * handshake whose key operation failed, then leaves the pipeline. Whether BoringSSL resumed a session is asked of BoringSSL itself, not inferred from whether the
 * key server was called, so the metric can prove that resumption saves the key-server call.
 */
final class HandshakeRecorder extends ChannelInboundHandlerAdapter {
    /**
     * A fatal {@code internal_error} alert as a plaintext TLS record: what a server sends before its first
     * encrypted record, which is where a handshake stands when its private-key operation fails.
     */
    private static final byte[] INTERNAL_ERROR_ALERT = {21, 3, 3, 0, 2, 2, 80};

    private final EdgeMetrics metrics;
    private final RemoteKeyMethod keyMethod;
    private long start;

    HandshakeRecorder(EdgeMetrics metrics, RemoteKeyMethod keyMethod) {
        this.metrics = metrics;
        this.keyMethod = keyMethod;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start = System.nanoTime();
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent done) {
            SSLEngine engine = ctx.pipeline().get(SslHandler.class).engine();
            boolean keyFailed = keyMethod.keyOperationFailed(engine);
            if (done.isSuccess()) {
                metrics.handshakeCompleted(isResumed(engine), engine.getSession().getProtocol(),
                        System.nanoTime() - start);
            } else if (keyFailed) {
                metrics.handshakeFailed(FailureReason.KEY_SERVER);
                // BoringSSL sends no alert when a private-key operation fails; the client deserves one. Written
                // below the TLS handler, as the plaintext record it must be at this stage.
                ctx.pipeline().context(SslHandler.class).writeAndFlush(Unpooled.wrappedBuffer(INTERNAL_ERROR_ALERT));
            } else {
                metrics.handshakeFailed(reason(done.cause()));
            }
            ctx.pipeline().remove(this);
        }
        super.userEventTriggered(ctx, event);
    }

    static boolean isResumed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine openSsl) {
            synchronized (openSsl) {
                long ssl = openSsl.sslPointer();
                return ssl != 0 && SSL.isSessionReused(ssl);
            }
        }
        return false;
    }

    static FailureReason reason(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof SslHandshakeTimeoutException) {
                return FailureReason.TIMEOUT;
            }
        }
        return FailureReason.PROTOCOL;
    }
}
