// PeerIdentifier -- learns the connecting process's PID once, from the socket's peer credentials.
package io.elastikey.scaleup.agent.net;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.util.AttributeKey;

import java.io.IOException;

/**
 * Reads {@code SO_PEERCRED} when a connection opens and keeps the PID in {@link #PID}, for the cgroup actuator (the
 * kernel vouches for it; the request cannot lie about it). Removes itself afterwards.
 */
@Sharable
final class PeerIdentifier extends ChannelInboundHandlerAdapter {
    static final PeerIdentifier INSTANCE = new PeerIdentifier();
    /** The peer's PID, or -1 when the transport could not tell. */
    static final AttributeKey<Integer> PID = AttributeKey.valueOf("scaleupd.peer.pid");

    private PeerIdentifier() {
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        int pid = -1;
        if (ctx.channel() instanceof EpollDomainSocketChannel ch) {
            try {
                pid = ch.peerCredentials().pid();
            } catch (IOException e) {
                pid = -1;
            }
        }
        ctx.channel().attr(PID).set(pid);
        ctx.pipeline().remove(this);
        super.channelActive(ctx);
    }

    static int pidOf(io.netty.channel.Channel ch) {
        Integer pid = ch.attr(PID).get();
        return pid == null ? -1 : pid;
    }
}
