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
 * connection that read reads in one turn of the loop joins a group, and a task queued on the loop
 * (it runs after the turn's I/O) takes the groups. Readers go to one read worker, which runs each
 * connection's batch in turn and passes all the replies back in one event-loop task. Writers' plain
 * SETs are written on the loop itself, together (see {@link #runWrites}).
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
            submitReads(group);
        }
        if (!writers.isEmpty()) {
            List<RespDispatcher> group = writers;
            writers = new ArrayList<>();
            runWrites(group);
        }
    }

    /**
     * The turn's readers as one task per read thread at most: each task runs its connections one after another, so
     * with several read threads (as when values are read past the page cache, {@code --direct-reads}, and a read
     * waits for the device) one task for the whole group would wait out its reads in a row while the other threads
     * sat idle. With one read thread this is one task, as before.
     */
    private void submitReads(List<RespDispatcher> group) {
        for (List<RespDispatcher> part : parts(group, workers.readThreads)) {
            submit(workers.reads, part, () -> run(part));
        }
    }

    /** {@code group} cut into at most {@code threads} runs of consecutive members, as even as can be. */
    static <T> List<List<T>> parts(List<T> group, int threads) {
        int tasks = Math.min(group.size(), threads);
        if (tasks <= 1) {
            return List.of(group);
        }
        int size = group.size();
        List<List<T>> parts = new ArrayList<>(tasks);
        for (int t = 0; t < tasks; t++) {
            parts.add(group.subList(t * size / tasks, (t + 1) * size / tasks));
        }
        return parts;
    }

    private static void submit(Executor pool, List<RespDispatcher> group, Runnable task) {
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) { // shutting down
            group.forEach(RespDispatcher::abandon);
        }
    }

    /**
     * On the event loop. Connections whose batch is nothing but plain SETs (what loaders and redis-benchmark send) are
     * written together, here: the store appends them to its log and makes them visible without waiting for an fsync
     * ({@link CommandRunner#writeSetsOnLoop}), so a SET costs no hand-off to a worker and back, as Redis writes its
     * append-only file on its own loop. Their replies wait for the durability the fsync policy promises: at once
     * under {@code NEVER}, otherwise until the store's syncer thread has an fsync cover them and hands them back
     * ({@link CommandRunner#whenDurable}), while the loop goes on and the SETs it reads meanwhile join the next
     * fsync. No thread is parked per group. A connection with anything else in its batch
     * gets a worker task of its own, so a slow command never holds up the loop or the group; so does each connection
     * of the group when the store cannot write without blocking, or an entry breaks a limit.
     */
    private void runWrites(List<RespDispatcher> group) {
        SetGroup sets = new SetGroup();
        for (RespDispatcher d : group) {
            List<RespRequest> batch = d.take(false);
            if (batch.isEmpty()) {
                d.finished();
            } else if (CommandRunner.maySet(d.state()) && batch.stream().allMatch(StoreCommands::isPlainSet)) {
                sets.add(d, batch);
            } else {
                d.runAlone(batch);
            }
        }
        if (sets.isEmpty()) {
            return;
        }
        long ticket;
        try {
            ticket = runner.writeSetsOnLoop(sets.entries());
        } catch (RuntimeException e) { // the store failed the write (disk full, closing): nothing to wait for
            sets.answer(e);
            return;
        }
        if (ticket == CommandRunner.ON_WORKER) {
            sets.runEachAlone();
        } else {
            runner.whenDurable(ticket, failure -> answerOnLoop(sets, failure));
        }
    }

    /**
     * Once the group's writes are durable (or failed), the answers go out on the loop: at once when this is the loop
     * (they were durable already: {@code NEVER}, say), queued on it from the store's syncer thread otherwise.
     */
    private void answerOnLoop(SetGroup sets, RuntimeException failure) {
        if (loop.inEventLoop()) {
            sets.answer(failure);
            return;
        }
        try {
            loop.execute(() -> sets.answer(failure));
        } catch (RejectedExecutionException e) { // shutting down
            sets.connections().forEach(RespDispatcher::abandon);
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
