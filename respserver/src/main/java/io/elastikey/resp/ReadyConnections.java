// ReadyConnections -- gathers the connections of one event loop that read requests in one loop turn.
package io.elastikey.resp;

import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.RejectedExecutionException;

/**
 * One per event loop, used only on it. Without pipelining every request is a burst of one, and a
 * task per request would cost a worker wake-up and an event-loop wake-up each. Instead, every
 * connection that read reads in one turn of the loop joins a group; a task queued on the loop
 * (it runs after the turn's I/O) hands the whole group to one worker, which runs each
 * connection's batch in turn and passes all the replies back in one event-loop task. Readers and
 * writers form separate groups on separate pools ({@link Workers}).
 */
final class ReadyConnections {
    private final EventLoop loop;
    private final Workers workers;
    private final CommandRunner runner;
    private List<RespDispatcher> readers = new ArrayList<>();
    private List<RespDispatcher> writers = new ArrayList<>();
    private boolean armed;

    ReadyConnections(EventLoop loop, Workers workers, CommandRunner runner) {
        this.loop = loop;
        this.workers = workers;
        this.runner = runner;
    }

    /** On the event loop: {@code d} has requests queued and is scheduled (its flag is set). */
    void add(RespDispatcher d, boolean writes) {
        (writes ? writers : readers).add(d);
        if (!armed) {
            armed = true;
            loop.execute(this::submit);
        }
    }

    private void submit() {
        armed = false;
        if (!readers.isEmpty()) {
            List<RespDispatcher> group = readers;
            readers = new ArrayList<>();
            submit(workers.reads, group, () -> run(group));
        }
        if (!writers.isEmpty()) {
            List<RespDispatcher> group = writers;
            writers = new ArrayList<>();
            submit(workers.writes, group, () -> runWrites(group));
        }
    }

    private static void submit(Executor pool, List<RespDispatcher> group, Runnable task) {
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) { // shutting down
            group.forEach(RespDispatcher::abandon);
        }
    }

    /**
     * On a write worker. Connections whose batch is nothing but plain SETs (what loaders and
     * redis-benchmark send) are written together with one putAll, so they share one durability
     * wait instead of queueing for one each; every SET is still answered only after it. A
     * connection with anything else in its batch gets a task of its own, so a slow command never
     * holds up the group.
     */
    private void runWrites(List<RespDispatcher> group) {
        List<RespDispatcher> setters = new ArrayList<>(group.size());
        List<List<RespRequest>> batches = new ArrayList<>(group.size());
        for (RespDispatcher d : group) {
            List<RespRequest> batch = d.take(false);
            if (batch.isEmpty()) {
                d.finished();
            } else if (CommandRunner.maySet(d.state()) && batch.stream().allMatch(StoreCommands::isPlainSet)) {
                setters.add(d);
                batches.add(batch);
            } else {
                d.runAlone(batch);
            }
        }
        if (setters.isEmpty()) {
            return;
        }
        List<ByteBuf> replies = new ArrayList<>(setters.size());
        for (int i = 0; i < setters.size(); i++) {
            replies.add(setters.get(i).newReplyBuffer(batches.get(i).size()));
        }
        runner.runSetBatches(batches, replies, setters.stream().map(RespDispatcher::state).toList());
        List<Runnable> writes = new ArrayList<>(setters.size());
        for (int i = 0; i < setters.size(); i++) {
            writes.add(setters.get(i).written(replies.get(i), batches.get(i).size()));
        }
        loop.execute(() -> writes.forEach(Runnable::run));
        setters.forEach(RespDispatcher::finished);
    }

    /** On a read worker. */
    private void run(List<RespDispatcher> group) {
        List<Runnable> writes = new ArrayList<>(group.size());
        for (RespDispatcher d : group) {
            Runnable w = d.runBatch(true);
            if (w != null) {
                writes.add(w);
            }
        }
        if (!writes.isEmpty()) {
            loop.execute(() -> writes.forEach(Runnable::run));
        }
        for (RespDispatcher d : group) {
            d.finished();
        }
    }
}
