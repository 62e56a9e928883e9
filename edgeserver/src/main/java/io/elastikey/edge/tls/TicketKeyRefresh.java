// TicketKeyRefresh -- keeps the edge's ticket keys those of the deployment, and says when it cannot.
package io.elastikey.edge.tls;

import io.elastikey.protocol.tickets.TicketKeySet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Fetches the deployment's ticket keys from the key servers at start and then a few times per rotation period
 * (a quarter of it, between one second and a minute), and installs them when the primary changes. Edges fetching
 * at different moments still agree: the set already holds the next period's key.
 *
 * <p>A failed fetch is tried again after one second, then two, four..., up to the usual interval: the first fetch
 * often meets a connection still being made. Until the first fetch succeeds the edge issues tickets under a random
 * key of its own (they resume only on this edge). When fetching fails for a whole rotation period, it stops using keys it can no longer refresh and rotates
 * keys of its own every period, until the key servers answer again: tickets then resume only where they were
 * issued, but no key stays primary longer than a period. One WARN when fetching starts failing, one INFO when it
 * recovers; the keys never reach a log.
 */
final class TicketKeyRefresh implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(TicketKeyRefresh.class);
    private static final long MIN_INTERVAL_MILLIS = 1_000;
    private static final long MAX_INTERVAL_MILLIS = 60_000;

    private final TicketKeySource source;
    private final Consumer<TicketKeySet> install;
    private final Runnable rotateOwn;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier clockMillis;
    private long rotationMillis;
    private long installedEpoch = Long.MIN_VALUE;
    private long lastSuccessMillis;
    private long lastOwnRotationMillis;
    private boolean failing;
    private long retryMillis = MIN_INTERVAL_MILLIS;

    TicketKeyRefresh(TicketKeySource source, Consumer<TicketKeySet> install, Runnable rotateOwn,
                     ScheduledExecutorService scheduler, Duration rotation, LongSupplier clockMillis) {
        this.source = source;
        this.install = install;
        this.rotateOwn = rotateOwn;
        this.scheduler = scheduler;
        this.rotationMillis = rotation.toMillis();
        this.clockMillis = clockMillis;
        this.lastSuccessMillis = clockMillis.getAsLong();
        this.lastOwnRotationMillis = lastSuccessMillis;
    }

    void start() {
        scheduler.execute(this);
    }

    @Override
    public void run() {
        source.fetch().whenComplete((set, failure) -> {
            try {
                if (failure == null) {
                    succeeded(set);
                } else {
                    failed(failure);
                }
            } finally {
                if (!scheduler.isShutdown()) {
                    scheduler.schedule(this, interval(), TimeUnit.MILLISECONDS);
                }
            }
        });
    }

    private synchronized void succeeded(TicketKeySet set) {
        lastSuccessMillis = clockMillis.getAsLong();
        rotationMillis = set.rotation().toMillis();
        retryMillis = MIN_INTERVAL_MILLIS;
        if (failing) {
            failing = false;
            log.info("session-ticket keys: the key servers answer again; tickets resume across the fleet");
        }
        if (set.primary().epoch() != installedEpoch) {
            install.accept(set);
            installedEpoch = set.primary().epoch();
            log.debug("session-ticket keys of period {} installed", installedEpoch);
        }
    }

    private synchronized void failed(Throwable failure) {
        if (!failing) {
            failing = true;
            log.warn("session-ticket keys: cannot fetch them from the key servers ({}); tickets may not resume on "
                    + "other edges until they answer", failure.getMessage());
        }
        long now = clockMillis.getAsLong();
        if (now - lastSuccessMillis >= rotationMillis && now - lastOwnRotationMillis >= rotationMillis) {
            rotateOwn.run();
            installedEpoch = Long.MIN_VALUE;
            lastOwnRotationMillis = now;
        }
    }

    private synchronized long interval() {
        long usual = Math.max(MIN_INTERVAL_MILLIS, Math.min(MAX_INTERVAL_MILLIS, rotationMillis / 4));
        if (!failing) {
            return usual;
        }
        long retry = Math.min(usual, retryMillis);
        retryMillis = Math.min(usual, 2 * retryMillis);
        return retry;
    }
}
