// ClientEventLoops -- a client's event loops: the caller's, or its own, shut down when the client closes.
package io.elastikey.protocol.net;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;

import java.util.concurrent.TimeUnit;

/**
 * The event loop group a client runs on. A caller that already has loops (the edge server) lends them and keeps
 * them; otherwise the client makes its own and shuts them down in {@link #close()}, waiting briefly unless called
 * from one of them (a callback closing its own client must not wait for itself).
 */
public final class ClientEventLoops implements AutoCloseable {
    private final EventLoopGroup group;
    private final boolean owned;

    /** @param lent the caller's group, or {@code null} for one of {@code threads} threads named {@code name} */
    public ClientEventLoops(EventLoopGroup lent, int threads, boolean preferNative, String name) {
        this.owned = lent == null;
        this.group = owned ? Transports.newGroup(threads, preferNative, name) : lent;
    }

    public EventLoopGroup group() {
        return group;
    }

    /** Shuts the group down if it is the client's own; a lent group is left running. */
    @Override
    public void close() {
        if (!owned) {
            return;
        }
        Future<?> terminated = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return;
            }
        }
        terminated.awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
