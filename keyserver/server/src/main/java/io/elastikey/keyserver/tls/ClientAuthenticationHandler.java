package io.elastikey.keyserver.tls;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.CallerResolver;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Turns the verified client certificate into a {@link Caller} once, when the handshake
 * completes, and keeps it on the connection for every request it carries (HTTP/2 streams find
 * it on their parent). A failed handshake is counted and the connection closed.
 */
public final class ClientAuthenticationHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ClientAuthenticationHandler.class);
    private static final AttributeKey<Caller> CALLER = AttributeKey.valueOf("elastikey.caller");

    private final CallerResolver resolver;
    private final KeyServerMetrics metrics;

    public ClientAuthenticationHandler(CallerResolver resolver, KeyServerMetrics metrics) {
        this.resolver = resolver;
        this.metrics = metrics;
    }

    /** The caller of {@code channel} or of its parent connection (HTTP/2 streams). */
    public static Caller caller(Channel channel) {
        Caller caller = channel.attr(CALLER).get();
        if (caller == null && channel.parent() != null) {
            caller = channel.parent().attr(CALLER).get();
        }
        if (caller == null) {
            throw new IllegalStateException("request on a connection without a verified client");
        }
        return caller;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent handshake) {
            if (handshake.isSuccess()) {
                authenticate(ctx);
            } else {
                metrics.handshakeFailed();
                log.debug("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), handshake.cause().toString());
                ctx.close();
            }
        }
        super.userEventTriggered(ctx, event);
    }

    private void authenticate(ChannelHandlerContext ctx) throws SSLPeerUnverifiedException {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        Certificate[] peer = ssl.engine().getSession().getPeerCertificates();
        if (peer.length == 0 || !(peer[0] instanceof X509Certificate certificate)) {
            throw new SSLPeerUnverifiedException("no X.509 client certificate");
        }
        ctx.channel().attr(CALLER).set(resolver.resolve(certificate, ctx.channel().remoteAddress()));
    }
}
