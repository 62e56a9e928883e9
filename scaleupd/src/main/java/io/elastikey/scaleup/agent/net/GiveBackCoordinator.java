// GiveBackCoordinator -- asks clients to give memory back, waits a bounded time, then lowers their grants itself.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.GiveBackRequest;
import io.elastikey.scaleup.agent.actuate.Actuation;
import io.elastikey.scaleup.agent.actuate.Actuator;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.ledger.LedgerException;
import io.elastikey.scaleup.agent.pool.Decision;
import io.elastikey.scaleup.agent.pool.MemoryPool;
import io.elastikey.scaleup.agent.pool.Owner;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.elastikey.scaleup.protocol.ScaleUpJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The agent's side of giving memory back. The order matters: a client must shrink before its cgroup limit drops
 * below what it uses, or the kernel refuses the limit (v1) or reclaims and OOM-kills to meet it (v2). So the agent
 * never lowers a limit first; it
 * <ol>
 *   <li>writes a {@link GiveBackRequest} ({@code give_back}: come down to {@code memory_mb} within
 *       {@code deadline_ms}) on every watch connection of the client;</li>
 *   <li>waits for the client's acknowledgement, which is an ordinary {@code rescale} (or {@code release}) to at most
 *       that total, from the grant's owner: the client shrinks first and then asks for less, and that rescale lowers
 *       the limit the usual way ({@link ActuateHandler});</li>
 *   <li>at the deadline, lowers a grant still above its target itself: the pool and the ledger first, then the
 *       actuator's {@link Actuator#force}. A client that does not listen, or hangs, cannot hold memory the pool no
 *       longer has for longer than the deadline.</li>
 * </ol>
 * A client asked again while a request is pending keeps its first deadline; a lower target replaces the pending one.
 *
 * <p>Runs on the agent's decision thread only (every method, the deadline timers included, which are scheduled on
 * that executor), so it shares the {@link MemoryPool} and the {@link Ledger} with {@link DecideHandler} without
 * locking and never races a decision.
 */
final class GiveBackCoordinator {
    private static final Logger log = LoggerFactory.getLogger(GiveBackCoordinator.class);

    private final MemoryPool pool;
    private final Ledger ledger;
    private final Actuator actuator;
    private final EventExecutor executor;
    private final long timeoutMs;
    private final Map<String, Set<Channel>> watchers = new HashMap<>();
    private final Map<String, Pending> pending = new HashMap<>();

    private record Pending(long targetMb, long sentNanos, String reason, ScheduledFuture<?> deadline) {
    }

    GiveBackCoordinator(MemoryPool pool, Ledger ledger, Actuator actuator, EventExecutor executor, Duration timeout) {
        this.pool = pool;
        this.ledger = ledger;
        this.actuator = actuator;
        this.executor = executor;
        this.timeoutMs = timeout.toMillis();
    }

    /** Adds a watch connection of {@code client}; it is forgotten when it closes. */
    void watch(String client, Channel ch) {
        watchers.computeIfAbsent(client, k -> new LinkedHashSet<>()).add(ch);
        ch.closeFuture().addListener(f -> {
            try {
                executor.execute(() -> unwatch(client, ch));
            } catch (java.util.concurrent.RejectedExecutionException agentClosing) {
                // the agent is stopping: nothing to forget
            }
        });
        Pending p = pending.get(client);
        if (p != null) { // a client that comes back while asked hears it again, with the time it has left
            long left = Math.max(0, timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p.sentNanos()));
            send(ch, new GiveBackRequest(client, p.targetMb(), pool.status(client).grantedMb(), left, p.reason()));
        }
    }

    private void unwatch(String client, Channel ch) {
        Set<Channel> set = watchers.get(client);
        if (set != null && set.remove(ch) && set.isEmpty()) {
            watchers.remove(client);
        }
    }

    /** Watch connections open for {@code client}. */
    int watchers(String client) {
        Set<Channel> set = watchers.get(client);
        return set == null ? 0 : set.size();
    }

    /**
     * Asks each client of {@code targets} to come down to its target; returns a summary for the caller's answer and
     * log ({@code ""} when nobody was asked).
     */
    String ask(Map<String, Long> targets, String reason) {
        List<String> asked = new ArrayList<>();
        targets.forEach((client, target) -> {
            long held = pool.status(client).grantedMb();
            if (held <= target) {
                return;
            }
            Pending p = pending.get(client);
            if (p != null && p.targetMb() <= target) {
                asked.add(client + " (already asked to come down to " + p.targetMb() + " MiB)");
                return;
            }
            long sent = System.nanoTime();
            long deadlineMs = p != null ? Math.max(0, timeoutMs - TimeUnit.NANOSECONDS.toMillis(sent - p.sentNanos()))
                    : timeoutMs;
            if (p != null) {
                p.deadline().cancel(false);
            }
            ScheduledFuture<?> timer = executor.schedule(() -> expire(client), deadlineMs, TimeUnit.MILLISECONDS);
            pending.put(client, new Pending(target, p != null ? p.sentNanos() : sent, reason, timer));
            GiveBackRequest request = new GiveBackRequest(client, target, held, deadlineMs, reason);
            int listeners = 0;
            for (Channel ch : watchers.getOrDefault(client, Set.of())) {
                send(ch, request);
                listeners++;
            }
            log.info("give_back client={} from_mb={} to_mb={} deadline_ms={} watchers={} reason=\"{}\"", client, held,
                    target, deadlineMs, listeners, reason);
            asked.add(client + " " + (held - target) + " MiB (to " + target + " MiB" + (listeners == 0
                    ? ", not watching" : "") + ")");
        });
        return asked.isEmpty() ? "" : "asked " + String.join(", ", asked) + " to give back within " + timeoutMs
                + " ms";
    }

    /** The grant of {@code client} is now {@code grantMb} (a decision stood): a pending request it meets is done. */
    void grantChanged(String client, long grantMb) {
        Pending p = pending.get(client);
        if (p != null && grantMb <= p.targetMb()) {
            p.deadline().cancel(false);
            pending.remove(client);
            log.info("give_back client={} done: grant {} MiB (asked {} MiB) after {} ms", client, grantMb,
                    p.targetMb(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p.sentNanos()));
        }
    }

    /** Whether {@code client} has a give-back request pending. */
    boolean pending(String client) {
        return pending.containsKey(client);
    }

    /** The deadline passed: lower the grant in the pool, the ledger and the actuator. */
    private void expire(String client) {
        Pending p = pending.remove(client);
        if (p == null) {
            return;
        }
        Decision d = pool.lower(client, p.targetMb(), "no give-back within " + timeoutMs + " ms");
        if (!d.changed()) {
            return;
        }
        try {
            ledger.write(pool.grants(), pool.owners());
        } catch (LedgerException e) {
            pool.undo(d);
            log.error("give_back client={} deadline passed, but the ledger could not be written: grant stays {} MiB "
                    + "({})", client, d.previousMb(), e.getMessage());
            return;
        }
        Owner owner = pool.owner(client);
        Actuation a = actuator.force(client, d.grantedMb(), owner != null ? owner.pid() : -1);
        log.warn("give_back client={} deadline passed after {} ms: {}; {}", client, timeoutMs, d.message(), a.note());
    }

    private static void send(Channel ch, GiveBackRequest request) {
        if (ch.isActive()) {
            ch.writeAndFlush(Unpooled.wrappedBuffer(ScaleUpJson.encodeGiveBack(request)));
        }
    }
}
