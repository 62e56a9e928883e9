package io.elastikey.keyserver.tls;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.protocol.net.RateLimitedLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Turns the verified client certificate into a {@link Caller} once, when the handshake
 * completes, and keeps it on the connection for every request it carries (HTTP/2 streams find
 * it on their parent). A failed handshake is counted, logged (rate-limited) with its innermost cause, and the
 * connection closed.
 */
public final class ClientAuthenticationHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ClientAuthenticationHandler.class);
    private static final AttributeKey<Caller> CALLER = AttributeKey.valueOf("elastikey.caller");
    /**
     * A client refused for its certificate (none, another CA's, revoked) is what an operator looks for first when an
     * edge cannot connect; a scanner's flood of them must not bury the log, so at most ten lines a minute.
     */
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(log, Level.INFO, 10, Duration.ofMinutes(1));

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
                REFUSALS.log("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(),
                        reason(handshake.cause()));
                ctx.close();
            }
        }
        super.userEventTriggered(ctx, event);
    }

    /** The innermost cause's text: OpenSSL's outer exception often says only "General OpenSslEngine problem". */
    static String reason(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
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
