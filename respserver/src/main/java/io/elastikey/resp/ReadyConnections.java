// ReadyConnections -- gathers the connections of one event loop that read requests in one loop turn.
package io.elastikey.resp;

import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One per event loop, used only on it. Without pipelining every request is a burst of one, and a
 * task per request would cost a worker wake-up and an event-loop wake-up each. Instead, every
 * connection that read reads in one turn of the loop joins a group; a task queued on the loop
 * (it runs after the turn's I/O) hands the whole group to one read worker, which runs each
 * connection's batch in turn and passes all the replies back in one event-loop task.
 */
final class ReadyConnections {
    private final EventLoop loop;
    private final Executor reads;
    private List<RespDispatcher> ready = new ArrayList<>();
    private boolean armed;

    ReadyConnections(EventLoop loop, Executor reads) {
        this.loop = loop;
        this.reads = reads;
    }

    /** On the event loop: {@code d} has reads queued and is scheduled (its flag is set). */
    void add(RespDispatcher d) {
        ready.add(d);
        if (!armed) {
            armed = true;
            loop.execute(this::submit);
        }
    }

    private void submit() {
        armed = false;
        List<RespDispatcher> group = ready;
        ready = new ArrayList<>();
        try {
            reads.execute(() -> run(group));
        } catch (RejectedExecutionException e) { // shutting down
            group.forEach(RespDispatcher::abandon);
        }
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
