// AdminRoute -- a path a server adds to the shared admin endpoint, next to /metrics, /healthz and /readyz.
package io.elastikey.protocol.admin;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One extra path of the admin endpoint and the one method it answers (others get 405). The handler gets the query
 * parameters, may answer later (a purge waits for the cache's writer thread), and must not block: it is called on an
 * event loop. A handler that throws {@link IllegalArgumentException} gets a 400 with its message; any other
 * failure a 500.
 *
 * @param method the HTTP method, e.g. {@code POST}: state-changing routes should not answer GET, so that a link or a
 *     prefetch cannot trigger them
 * @param path the exact path, e.g. {@code /purge}
 * @param handler what answers it
 */
public record AdminRoute(String method, String path, Handler handler) {

    /** Answers a request to the route. */
    @FunctionalInterface
    public interface Handler {
        CompletableFuture<Reply> handle(Map<String, List<String>> parameters);
    }

    /** A whole answer: status, content type and body (UTF-8). */
    public record Reply(int status, String contentType, String body) {
        public static Reply json(int status, String body) {
            return new Reply(status, "application/json", body);
        }
    }
}
