// StartedParts -- what a server has started, closed in reverse order, each close on its own.
package io.elastikey.protocol.net;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A server starts its parts in dependency order (event loops, stores, TLS, listener, admin) and must close them in
 * the reverse order, also when a later part failed to start; one part failing to close must not keep the others
 * open. The key server and the edge server each keep one.
 */
public final class StartedParts implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StartedParts.class);

    private final Deque<AutoCloseable> parts = new ArrayDeque<>();

    /** Remembers a part that has started; returns it. */
    public synchronized <T extends AutoCloseable> T add(T part) {
        parts.push(part);
        return part;
    }

    /** Closes every part, the last started first; a failure is logged and the rest are still closed. */
    @Override
    public synchronized void close() {
        while (!parts.isEmpty()) {
            AutoCloseable part = parts.pop();
            try {
                part.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed: {}", part, e.toString());
            }
        }
    }
}
