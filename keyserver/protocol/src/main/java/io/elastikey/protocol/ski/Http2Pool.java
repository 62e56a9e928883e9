// Http2Pool -- N HTTP/2 connections taken in turn, each request on a stream of its own.
package io.elastikey.protocol.ski;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * HTTP/2 multiplexes, so a connection takes any number of requests and the pool only spreads them: request
 * {@code i} goes to connection {@code i mod N}. Each request is a stream of the connection's {@link Http2Exchanges},
 * which reads its answer from the frames (no child channel per stream); streams beyond the server's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS} wait inside Netty's stream-buffering encoder until others finish.
 *
 * <p>A connection is made when first needed and made again after it closes or the server sends GOAWAY; requests that
 * arrive while it is being made wait for it, and all fail together if it cannot be made. A retired connection (GOAWAY)
 * keeps serving its open streams and is closed after the request timeout, by which time they have all ended.
 *
 * <p>Pipeline after the handshake: {@code SslHandler, FlushConsolidationHandler, Http2FrameCodec, Http2Exchanges,
 * Http2ConnectionTail}.
 */
final class Http2Pool implements ExchangePool {
    /** How many requests a busy event loop may hold before it writes them, at the most. */
    private static final int FLUSHES_BEFORE_FORCED_FLUSH = 64;
    private final Connector connector;
    private final int maxResponseBytes;
    private final long retireAfterMillis;
    private final Slot[] slots;
    private final AtomicInteger next = new AtomicInteger();

    Http2Pool(Connector connector, SkiClientOptions options) {
        this.connector = connector;
        this.maxResponseBytes = options.maxResponseBytes();
        this.retireAfterMillis = options.requestTimeout().toMillis();
        this.slots = new Slot[options.connections()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
    }

    @Override
    public void submit(Exchange<?> exchange) {
        Slot slot = onCallingThread();
        if (slot == null) {
            slot = slots[Math.floorMod(next.getAndIncrement(), slots.length)];
        }
        slot.channel().whenComplete((channel, failure) -> {
            if (failure != null) {
                exchange.fail(failure);
            } else {
                openStream(channel, exchange);
            }
        });
    }

    /**
     * A connection that is up on the calling thread's event loop, taken in turn when there are several, or
     * {@code null}. The edge asks from its own loops, which it lends the client: the stream is then opened and written
     * on the thread that asked, and the answer read there, with no hand-off between threads.
     */
    private Slot onCallingThread() {
        int start = next.get();
        for (int i = 0; i < slots.length; i++) {
            Slot slot = slots[Math.floorMod(start + i, slots.length)];
            if (slot.isOnCallingThread()) {
                return slot;
            }
        }
        return null;
    }

    @Override
    public CompletableFuture<Void> connectAll() {
        List<CompletableFuture<Channel>> all = new ArrayList<>();
        for (Slot slot : slots) {
            all.add(slot.channel());
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public int connected() {
        int up = 0;
        for (Slot slot : slots) {
            up += slot.isUp() ? 1 : 0;
        }
        return up;
    }

    @Override
    public void close() {
        for (Slot slot : slots) {
            slot.close();
        }
    }

    private static void openStream(Channel connection, Exchange<?> exchange) {
        if (exchange.isDone()) {
            return;
        }
        Http2Exchanges exchanges = connection.pipeline().get(Http2Exchanges.class);
        if (exchanges == null) { // closed meanwhile: its handlers are gone
            exchange.fail(Kind.CONNECTION_CLOSED, "cannot open an HTTP/2 stream: the connection is closed", null);
        } else {
            exchanges.send(exchange);
        }
    }

    /** One connection, made on demand. */
    private final class Slot {
        private CompletableFuture<Channel> current;
        private boolean closed;

        /** The connection, up or coming up; a new one when there is none or it closed or was retired. */
        synchronized CompletableFuture<Channel> channel() {
            if (closed) {
                return CompletableFuture.failedFuture(
                        new SkiTransportException(Kind.CLIENT_CLOSED, "the client is closed"));
            }
            if (current == null || current.isCompletedExceptionally() || current.isDone() && !isUp()) {
                CompletableFuture<Channel> connecting = connector.connect(this::install);
                connecting.thenAccept(channel -> channel.closeFuture().addListener(gone -> retire(connecting)));
                current = connecting;
            }
            return current;
        }

        /** Whether the connection is up and its event loop is the calling thread. */
        synchronized boolean isOnCallingThread() {
            Channel channel = current != null && !current.isCompletedExceptionally() ? current.getNow(null) : null;
            return channel != null && channel.isActive() && channel.eventLoop().inEventLoop();
        }

        synchronized boolean isUp() {
            Channel channel = current != null ? current.getNow(null) : null;
            return channel != null && channel.isActive();
        }

        private CompletableFuture<?> install(ChannelPipeline pipeline) {
            Http2ConnectionTail tail = new Http2ConnectionTail(this::retireAfterGoAway);
            // Requests sent in one event-loop task (an edge's handshakes read together, a load generator's batch)
            // leave in one TLS record and one write; a request alone goes out when the loop's next task runs.
            pipeline.addLast(new FlushConsolidationHandler(FLUSHES_BEFORE_FORCED_FLUSH, true));
            Http2FrameCodec codec = Http2FrameCodecBuilder.forClient()
                    .initialSettings(Http2Settings.defaultSettings().pushEnabled(false))
                    .encoderEnforceMaxConcurrentStreams(true).build();
            pipeline.addLast(codec, new Http2Exchanges(connector.authority(), maxResponseBytes), tail);
            return tail.settingsReceived();
        }

        /** Forgets {@code connection} if it is still the current one, so the next request makes another. */
        private synchronized void retire(CompletableFuture<Channel> connection) {
            if (current == connection) {
                current = null;
            }
        }

        private void retireAfterGoAway(Channel channel) {
            synchronized (this) {
                if (current != null && current.getNow(null) == channel) {
                    current = null;
                }
            }
            channel.eventLoop().schedule(() -> channel.close(), retireAfterMillis, TimeUnit.MILLISECONDS);
        }

        void close() {
            CompletableFuture<Channel> last;
            synchronized (this) {
                closed = true;
                last = current;
                current = null;
            }
            if (last != null) {
                last.thenAccept(Channel::close);
            }
        }
    }
}
