// PeerIdentifier -- learns the connecting process's uid and PID once, from the socket's peer credentials.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.agent.pool.Owner;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import io.netty.util.AttributeKey;

import java.io.IOException;

/**
 * Reads {@code SO_PEERCRED} when a connection opens and keeps it in {@link #PEER}: the uid decides whose grants the
 * connection may change ({@link Owner#admits}), the PID is what the cgroup actuator moves. The kernel vouches for
 * both (they are the credentials of the process that called {@code connect}); the request cannot lie about them.
 * Removes itself afterwards.
 */
@Sharable
final class PeerIdentifier extends ChannelInboundHandlerAdapter {
    static final PeerIdentifier INSTANCE = new PeerIdentifier();
    /** The peer's credentials; uid and pid -1 when the transport could not tell. */
    static final AttributeKey<Owner> PEER = AttributeKey.valueOf("scaleupd.peer");
    static final Owner UNKNOWN = new Owner(-1, -1);

    private PeerIdentifier() {
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        Owner peer = UNKNOWN;
        if (ctx.channel() instanceof EpollDomainSocketChannel ch) {
            try {
                PeerCredentials c = ch.peerCredentials();
                peer = new Owner(c.uid(), c.pid());
            } catch (IOException e) {
                peer = UNKNOWN;
            }
        }
        ctx.channel().attr(PEER).set(peer);
        ctx.pipeline().remove(this);
        super.channelActive(ctx);
    }

    static Owner peerOf(Channel ch) {
        Owner peer = ch.attr(PEER).get();
        return peer == null ? UNKNOWN : peer;
    }

    static int pidOf(Channel ch) {
        return peerOf(ch).pid();
    }
}
