// SetGroup -- the plain-SET batches of one loop turn's connections, written to the store together.
package io.elastikey.resp;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@link ReadyConnections} gathered in one turn of its loop from connections whose whole batch
 * is plain SETs: the connections, their batches, and the one list of entries that goes to the store.
 * Each connection's {@code +OK}s (or errors) are encoded only once the outcome is known, one reply
 * buffer per connection, and the connection is released ({@link RespDispatcher#finished}) only after
 * its replies are on their way, so a later request of it can never be answered first.
 */
final class SetGroup {
    private final List<RespDispatcher> connections = new ArrayList<>();
    private final List<List<RespRequest>> batches = new ArrayList<>();

    void add(RespDispatcher d, List<RespRequest> batch) {
        connections.add(d);
        batches.add(batch);
    }

    boolean isEmpty() {
        return connections.isEmpty();
    }

    List<RespDispatcher> connections() {
        return connections;
    }

    /** Every SET's key and value, in connection order: one putAll. */
    List<Map.Entry<byte[], byte[]>> entries() {
        List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>();
        for (List<RespRequest> batch : batches) {
            for (RespRequest r : batch) {
                entries.add(StoreCommands.entryOf(r));
            }
        }
        return entries;
    }

    /** On the event loop, once the writes are as durable as promised ({@code failure} null) or failed: answers every SET. */
    void answer(RuntimeException failure) {
        for (int i = 0; i < connections.size(); i++) {
            RespDispatcher d = connections.get(i);
            int n = batches.get(i).size();
            ByteBuf out = d.replyBuffer(failure == null ? n * ReplyEncoder.OK_LENGTH : 128);
            for (int k = 0; k < n; k++) {
                if (failure == null) {
                    ReplyEncoder.ok(out);
                } else {
                    ReplyEncoder.encode(StoreCommands.storeError(failure), out);
                }
            }
            d.written(out, n).run();
        }
        connections.forEach(RespDispatcher::finished);
    }

    /**
     * For a group the loop could not write ({@link CommandRunner#writeSetsOnLoop} wrote nothing): each connection's
     * batch takes the worker path every other write takes ({@link RespDispatcher#runAlone}), where a bad entry is
     * refused on its own and the rest are answered once durable.
     */
    void runEachAlone() {
        for (int i = 0; i < connections.size(); i++) {
            connections.get(i).runAlone(batches.get(i));
        }
    }
}
