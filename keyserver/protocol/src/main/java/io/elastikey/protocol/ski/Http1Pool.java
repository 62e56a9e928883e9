// Http1Pool -- N keep-alive HTTP/1.1 connections, one request in flight on each, the rest waiting in line.
package io.elastikey.protocol.ski;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;

/**
 * HTTP/1.1 has no multiplexing and SKI clients do not pipeline (a slow answer would hold up every one behind it), so
 * each connection carries one request at a time and the pool is a set of slots and a line of waiting exchanges.
 *
 * <p>A slot is DISCONNECTED, CONNECTING, IDLE or BUSY. An exchange takes an IDLE slot, or joins the line and, if a
 * slot is DISCONNECTED, has it connect: connections are made on demand, at most {@code connections} of them. A slot
 * that finishes (answer received, connection kept alive) or connects serves the line before it turns IDLE, so an IDLE
 * slot means an empty line. A slot whose connection closes turns DISCONNECTED and reconnects if the line is waiting.
 * A failed connect fails the whole line when no other slot is up or coming up, rather than leaving it to time out.
 *
 * <p>All state is guarded by the pool's monitor; sends and connects happen outside it. The line holds no more than
 * the client's outstanding limit of live exchanges; ones that timed out in line are dropped when they reach its head.
 */
final class Http1Pool implements ExchangePool {
    private enum State { DISCONNECTED, CONNECTING, IDLE, BUSY }

    /** One connection's place in the pool; its handler changes with every reconnect. */
    static final class Slot {
        private State state = State.DISCONNECTED;
        private Http1Handler handler;
        /** While CONNECTING: completes when the pool has taken in the outcome. */
        private CompletableFuture<Channel> connecting;
    }

    private final Connector connector;
    private final int maxResponseBytes;
    private final Slot[] slots;
    private final ArrayDeque<Exchange<?>> line = new ArrayDeque<>();
    private boolean closed;

    Http1Pool(Connector connector, SkiClientOptions options) {
        this.connector = connector;
        this.maxResponseBytes = options.maxResponseBytes();
        this.slots = new Slot[options.connections()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
    }

    @Override
    public void submit(Exchange<?> exchange) {
        Http1Handler idle = null;
        Slot toConnect = null;
        synchronized (this) {
            Slot slot = takeIdle();
            if (slot != null) {
                slot.state = State.BUSY;
                idle = slot.handler;
            } else {
                line.addLast(exchange);
                toConnect = take(State.DISCONNECTED);
                if (toConnect != null) {
                    markConnecting(toConnect);
                }
            }
        }
        if (idle != null) {
            idle.send(exchange);
        }
        if (toConnect != null) {
            connect(toConnect);
        }
    }

    /** Puts back an exchange a closing connection could not send: nothing was written, so it may go elsewhere. */
    void resubmit(Exchange<?> exchange) {
        submit(exchange);
    }

    @Override
    public CompletableFuture<Void> connectAll() {
        List<CompletableFuture<Channel>> all = new ArrayList<>();
        List<Slot> toConnect = new ArrayList<>();
        synchronized (this) {
            for (Slot slot : slots) {
                if (slot.state == State.DISCONNECTED) {
                    markConnecting(slot);
                    toConnect.add(slot);
                }
                if (slot.state == State.CONNECTING) {
                    all.add(slot.connecting);
                }
            }
        }
        toConnect.forEach(this::connect);
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public synchronized int connected() {
        int up = 0;
        for (Slot slot : slots) {
            up += slot.state == State.IDLE || slot.state == State.BUSY ? 1 : 0;
        }
        return up;
    }

    /** Caller holds the monitor. The promise completes once the pool has taken in the connect's outcome. */
    private void markConnecting(Slot slot) {
        slot.state = State.CONNECTING;
        slot.connecting = new CompletableFuture<>();
    }

    /** Connects a slot {@link #markConnecting} has marked. */
    private void connect(Slot slot) {
        CompletableFuture<Channel> promise;
        synchronized (this) {
            promise = slot.connecting;
        }
        Http1Handler handler = new Http1Handler(this, slot, connector.authority());
        connector.connect(pipeline -> {
            pipeline.addLast(new HttpClientCodec(), new HttpObjectAggregator(maxResponseBytes), handler);
            return CompletableFuture.completedFuture(null);
        }).whenComplete((channel, failure) -> {
            if (failure == null) {
                connected(slot, handler);
                promise.complete(channel);
            } else {
                connectFailed(slot, failure);
                promise.completeExceptionally(failure);
            }
        });
    }

    private void connected(Slot slot, Http1Handler handler) {
        boolean reconnect = false;
        synchronized (this) {
            if (closed) {
                slot.state = State.DISCONNECTED;
                handler.close();
                return;
            }
            if (handler.isInactive()) { // closed before we got here, so disconnected() did not know the handler
                reconnect = !line.isEmpty();
                slot.state = State.DISCONNECTED;
                if (reconnect) {
                    markConnecting(slot);
                }
            } else {
                slot.handler = handler;
            }
        }
        if (reconnect) {
            connect(slot);
        } else {
            released(slot);
        }
    }

    private void connectFailed(Slot slot, Throwable failure) {
        List<Exchange<?>> failed = new ArrayList<>();
        synchronized (this) {
            slot.state = State.DISCONNECTED;
            boolean anotherMayServe = false;
            for (Slot other : slots) {
                anotherMayServe |= other.state != State.DISCONNECTED;
            }
            if (!anotherMayServe) {
                failed.addAll(line);
                line.clear();
            }
        }
        for (Exchange<?> exchange : failed) {
            exchange.fail(failure);
        }
    }

    /** The slot's connection is free: it takes the next live exchange in line, or turns IDLE. */
    void released(Slot slot) {
        Exchange<?> next = null;
        Http1Handler handler;
        synchronized (this) {
            handler = slot.handler;
            if (handler == null || closed) {
                return;
            }
            while (next == null && !line.isEmpty()) {
                Exchange<?> head = line.pollFirst();
                next = head.isDone() ? null : head;
            }
            slot.state = next != null ? State.BUSY : State.IDLE;
        }
        if (next != null) {
            handler.send(next);
        }
    }

    /** The slot's connection closed; it reconnects at once if exchanges are waiting. */
    void disconnected(Slot slot, Http1Handler handler) {
        boolean reconnect;
        synchronized (this) {
            if (slot.handler != handler) {
                return; // a connection that never made it to the pool: connectFailed has seen to it
            }
            slot.handler = null;
            reconnect = !closed && !line.isEmpty();
            slot.state = State.DISCONNECTED;
            if (reconnect) {
                markConnecting(slot);
            }
        }
        if (reconnect) {
            connect(slot);
        }
    }

    @Override
    public void close() {
        List<Http1Handler> open = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (Slot slot : slots) {
                if (slot.handler != null) {
                    open.add(slot.handler);
                }
            }
        }
        open.forEach(Http1Handler::close);
    }

    /** The first slot in {@code state}, or null. Caller holds the monitor. */
    /**
     * Caller holds the monitor. An idle slot whose connection runs on the calling thread's event loop if there is one
     * (the edge asks from its own loops, which it lends the client: the request is then written and its answer read
     * on the thread that asked, with no hand-off between threads either way), else the first idle slot.
     */
    private Slot takeIdle() {
        Slot first = null;
        for (Slot slot : slots) {
            if (slot.state == State.IDLE) {
                if (slot.handler.onCallingThread()) {
                    return slot;
                }
                if (first == null) {
                    first = slot;
                }
            }
        }
        return first;
    }

    private Slot take(State state) {
        for (Slot slot : slots) {
            if (slot.state == state) {
                return slot;
            }
        }
        return null;
    }
}
