// WritabilityReadGate -- stops reading requests from a client that does not read its answers.
package io.elastikey.protocol.net;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Netty reads a connection's requests whether or not the client reads the answers, which then pile up in the
 * connection's outbound buffer: a client that pipelines requests and never reads (a compromised edge, say) would
 * make the key server keep every answer until it ran out of memory. While the channel is over its write buffer's
 * high water mark this handler holds its reads ({@link ReadGate}), so the client's requests wait in its own socket
 * buffers and then in the client; below the low water mark reads resume.
 */
@Sharable
public final class WritabilityReadGate extends ChannelInboundHandlerAdapter {
    public static final WritabilityReadGate INSTANCE = new WritabilityReadGate();

    private WritabilityReadGate() {
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            ReadGate.release(ctx.channel(), ReadGate.Reason.UNREAD_ANSWERS);
        } else {
            ReadGate.hold(ctx.channel(), ReadGate.Reason.UNREAD_ANSWERS);
        }
        super.channelWritabilityChanged(ctx);
    }
}
