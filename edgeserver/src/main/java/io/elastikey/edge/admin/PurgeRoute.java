// PurgeRoute -- POST /purge on the edge's admin endpoint: deletes content-cache entries by URL or by prefix.
package io.elastikey.edge.admin;

import io.elastikey.edge.content.ContentCache;
import io.elastikey.protocol.admin.AdminRoute;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * {@code POST /purge?url=/path} or {@code ?url=https://host/path} (one URL, every {@code Vary} variant), or
 * {@code POST /purge?prefix=/static/} (every URL under it); without a host every host the edge serves is meant.
 * Answers {@code {"purged": N}} with the number of stored responses deleted, once they are gone (a request after
 * the answer misses); 400 for bad parameters, 503 when the cache's writer is too far behind to take it.
 *
 * <p>POST only: a purge costs the origin a refetch of everything it names, so a GET (a link, a prefetch) must not
 * trigger one. Like the rest of the admin endpoint it is unauthenticated and meant for loopback.
 */
public final class PurgeRoute {
    private PurgeRoute() {
    }

    public static AdminRoute of(ContentCache cache) {
        return new AdminRoute("POST", "/purge", parameters -> cache.purge(one(parameters, "url"),
                one(parameters, "prefix"))
                .thenApply(n -> AdminRoute.Reply.json(200, "{\"purged\": " + n + "}\n"))
                .exceptionally(PurgeRoute::failed));
    }

    private static AdminRoute.Reply failed(Throwable failure) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof RejectedExecutionException) {
            return AdminRoute.Reply.json(503, "{\"error\": \"the cache is busy; try again\"}\n");
        }
        return AdminRoute.Reply.json(500, "{\"error\": \"purge failed\"}\n");
    }

    private static String one(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.get(name);
        if (values != null && values.size() > 1) {
            throw new IllegalArgumentException(name + "= given more than once");
        }
        return values == null ? null : values.get(0);
    }
}
