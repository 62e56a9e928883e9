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
                entries.add(Map.entry(r.bytes(1), r.bytes(2)));
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
     * On a write worker, for a group the loop could not write ({@link CommandRunner#writeSetsOnLoop}): the whole
     * putAll with its durability wait, each SET answered on its own when an entry breaks a limit; the replies
     * go back to the loop in one task.
     */
    void runOnWorker(CommandRunner runner, io.netty.channel.EventLoop loop) {
        List<ByteBuf> replies = new ArrayList<>(connections.size());
        for (int i = 0; i < connections.size(); i++) {
            replies.add(connections.get(i).replyBuffer(batches.get(i).size() * ReplyEncoder.OK_LENGTH));
        }
        runner.runSetBatches(batches, replies, connections.stream().map(RespDispatcher::state).toList());
        List<Runnable> writes = new ArrayList<>(connections.size());
        for (int i = 0; i < connections.size(); i++) {
            writes.add(connections.get(i).written(replies.get(i), batches.get(i).size()));
        }
        loop.execute(() -> writes.forEach(Runnable::run));
        connections.forEach(RespDispatcher::finished);
    }
}
