// HeardNotices -- what a test's follower of a store's change notices heard, in order, to wait on.
package io.elastikey.store.redis;

import io.elastikey.store.KeyValueStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link KeyValueStore.ChangeListener} that queues each notice as text, and {@link #MISSED} for a gap. */
final class HeardNotices implements KeyValueStore.ChangeListener {
    static final String MISSED = "missed";
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();

    @Override
    public void announced(byte[] notice) {
        heard.add(new String(notice, StandardCharsets.UTF_8));
    }

    @Override
    public void missedSome() {
        heard.add(MISSED);
    }

    /** The next thing heard, waiting up to 20 s for it; {@code null} when nothing came. */
    String next() throws InterruptedException {
        return next(PATIENCE);
    }

    /** The next thing heard within {@code wait}; {@code null} when nothing came. */
    String next(Duration wait) throws InterruptedException {
        return heard.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    }
}
