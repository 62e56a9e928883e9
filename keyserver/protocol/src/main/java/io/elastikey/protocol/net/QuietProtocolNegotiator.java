// QuietProtocolNegotiator -- ALPN's choice, without a WARN and stack trace for each client that breaks the handshake.
package io.elastikey.protocol.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;

import javax.net.ssl.SSLException;

/**
 * Netty's ALPN step as the key server and the edge use it: clients that offer no ALPN get HTTP/1.1; a failed TLS
 * handshake is closed quietly (it is counted and logged where the server records handshakes); any other exception (a
 * reset during the handshake, say) goes on to the {@link ProtocolErrorHandler} at the end of the pipeline instead of
 * the base class, which logs a WARN with a stack trace for each.
 */
public abstract class QuietProtocolNegotiator extends ApplicationProtocolNegotiationHandler {
    protected QuietProtocolNegotiator() {
        super(ApplicationProtocolNames.HTTP_1_1);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (cause instanceof DecoderException && cause.getCause() instanceof SSLException) {
            super.exceptionCaught(ctx, cause);
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
