package io.elastikey.protocol.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.protocol.config.ConfigException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One listening socket per event loop, over real loopback sockets: every connection is served on the loop whose
 * socket accepted it, the loops share one port (picked when port 0 is asked), and a port something already listens
 * on is refused with the same words as a single listener's, even when that something listens with
 * {@code SO_REUSEPORT} as these sockets do.
 */
class ListenersTest {
    private static final InetSocketAddress ANY_LOOPBACK_PORT =
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final List<Channel> listeners = new ArrayList<>();
    /** Each accepted connection, and the loop of the listener that accepted it. */
    private final Map<Channel, EventLoop> accepted = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        listeners.forEach(listener -> listener.close().syncUninterruptibly());
        groups.forEach(group -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
    }

    @Test
    void eachLoopAcceptsOnOnePortAndServesWhatItAccepts() throws Exception {
        assumeTrue(Transports.nativeAvailable(), "SO_REUSEPORT listeners need the epoll transport");
        EventLoopGroup loops = group(2, true);
        listeners.addAll(bindOnEachLoop(loops));

        assertThat(listeners).hasSize(2);
        assertThat(listeners).extracting(Channel::eventLoop).doesNotHaveDuplicates();
        InetSocketAddress address = (InetSocketAddress) listeners.get(0).localAddress();
        assertThat(address.getPort()).isPositive();
        assertThat(listeners).extracting(Channel::localAddress).containsOnly(address);

        connect(address, 64);
        assertThat(accepted).hasSize(64);
        accepted.forEach((child, acceptingLoop) -> assertThat(child.eventLoop()).isSameAs(acceptingLoop));
        // the kernel spreads connections from 64 client ports over both sockets
        assertThat(accepted.values().stream().distinct().count()).isEqualTo(2);
    }

    @Test
    void aPortWithAPlainListenerIsRefusedByName() throws Exception {
        try (ServerSocketChannel other = ServerSocketChannel.open().bind(ANY_LOOPBACK_PORT)) {
            InetSocketAddress taken = (InetSocketAddress) other.getLocalAddress();
            assertThatThrownBy(() -> Listeners.bindOnEachLoop("listen", taken, group(2, true), b -> b
                    .childHandler(new ChannelInboundHandlerAdapter())))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("listen: cannot listen on 127.0.0.1:" + taken.getPort()
                            + ": address already in use (another process listens on that port)");
        }
    }

    @Test
    void aPortWithAnotherReusePortListenerIsRefusedToo() throws Exception {
        assumeTrue(Transports.nativeAvailable(), "SO_REUSEPORT listeners need the epoll transport");
        try (ServerSocketChannel other = ServerSocketChannel.open()) {
            // what a second server of the same user, started by mistake on the same port, would have done
            other.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            other.bind(ANY_LOOPBACK_PORT);
            InetSocketAddress taken = (InetSocketAddress) other.getLocalAddress();
            assertThatThrownBy(() -> Listeners.bindOnEachLoop("listen", taken, group(2, true), b -> b
                    .childHandler(new ChannelInboundHandlerAdapter())))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("address already in use");
        }
    }

    @Test
    void withoutEpollOneSocketServesOnTheLoops() throws Exception {
        EventLoopGroup loops = group(2, false);
        assertThat(loops).isInstanceOf(NioEventLoopGroup.class);
        listeners.addAll(bindOnEachLoop(loops));

        assertThat(listeners).hasSize(1);
        connect((InetSocketAddress) listeners.get(0).localAddress(), 8);
        assertThat(accepted).hasSize(8);
    }

    private EventLoopGroup group(int threads, boolean preferNative) {
        EventLoopGroup group = Transports.newGroup(threads, preferNative, "listeners-test");
        groups.add(group);
        return group;
    }

    private List<Channel> bindOnEachLoop(EventLoopGroup loops) throws InterruptedException {
        return Listeners.bindOnEachLoop("listen", ANY_LOOPBACK_PORT, loops, b -> b
                .childHandler(new Recorder()));
    }

    /** Notes each accepted connection with the loop of the listener that accepted it. */
    @ChannelHandler.Sharable
    private final class Recorder extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            accepted.put(ctx.channel(), ctx.channel().parent().eventLoop());
        }
    }

    /** Opens {@code n} connections, waits until all are accepted, then closes them. */
    private void connect(InetSocketAddress address, int n) throws IOException, InterruptedException {
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                clients.add(new Socket(address.getAddress(), address.getPort()));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (accepted.size() < n && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            for (Socket client : clients) {
                client.close();
            }
        }
    }
}
