package io.elastikey.edge.http;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.admin.EdgeMetrics.FailureReason;
import io.elastikey.edge.keyservers.NoKeyServerException;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiTransportException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.internal.tcnative.SSL;

import javax.net.ssl.SSLEngine;

/**
 * Counts each connection's handshake as full or resumed and times it from the accept, then leaves the
 * pipeline. Whether BoringSSL resumed a session is asked of BoringSSL itself, not inferred from whether the
 * key server was called, so the metric can prove that resumption saves the key-server call.
 */
final class HandshakeRecorder extends ChannelInboundHandlerAdapter {
    private final EdgeMetrics metrics;
    private long start;

    HandshakeRecorder(EdgeMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start = System.nanoTime();
        super.channelActive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent done) {
            if (done.isSuccess()) {
                SSLEngine engine = ctx.pipeline().get(SslHandler.class).engine();
                metrics.handshakeCompleted(isResumed(engine), engine.getSession().getProtocol(),
                        System.nanoTime() - start);
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
            if (t instanceof SkiTransportException || t instanceof SkiException || t instanceof NoKeyServerException) {
                return FailureReason.KEY_SERVER;
            }
            if (t instanceof SslHandshakeTimeoutException) {
                return FailureReason.TIMEOUT;
            }
        }
        return FailureReason.PROTOCOL;
    }
}
