package io.elastikey.edge;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain-HTTP/1.1 origin whose answers each test scripts per path, on the JDK's own HTTP server (a second,
 * independent implementation next to the sample origin). It records every request it gets, with its headers, and
 * can hold answers behind a gate until the test opens it, so that "these requests were all waiting" is a fact the
 * test establishes rather than a timing it hopes for.
 */
final class ScriptedOrigin implements AutoCloseable {
    /** One request as it arrived. */
    record Seen(String method, String target, Headers headers) {
    }

    /** An answer; {@code body} null: none (304). */
    record Answer(int status, Map<String, String> headers, String body) {
        static Answer ok(String body, String... headers) {
            return new Answer(200, pairs(headers), body);
        }

        static Answer of(int status, String body, String... headers) {
            return new Answer(status, pairs(headers), body);
        }

        private static Map<String, String> pairs(String... kv) {
            Map<String, String> m = new java.util.LinkedHashMap<>();
            for (int i = 0; i < kv.length; i += 2) {
                m.put(kv[i], kv[i + 1]);
            }
            return m;
        }
    }

    /** Decides the answer to a request. */
    interface Script {
        Answer answer(Seen request) throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, Script> scripts = new ConcurrentHashMap<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    ScriptedOrigin() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    /** Answers {@code path} (the target without its query) with {@code script}. */
    ScriptedOrigin on(String path, Script script) {
        scripts.put(path, script);
        return this;
    }

    /** Requests for {@code path} so far. */
    List<Seen> seen(String path) {
        return seen.stream().filter(s -> s.target().split("\\?")[0].equals(path)).toList();
    }

    /** A gate for a script to wait on: {@link #open} lets every waiter through, now and later. */
    static final class Gate {
        private final CountDownLatch latch = new CountDownLatch(1);
        final AtomicInteger waiting = new AtomicInteger();

        void pass() throws InterruptedException {
            waiting.incrementAndGet();
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate never opened");
            }
        }

        void open() {
            latch.countDown();
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Seen request = new Seen(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                    exchange.getRequestHeaders());
            seen.add(request);
            Script script = scripts.get(exchange.getRequestURI().getPath());
            Answer answer;
            try {
                answer = script == null ? Answer.of(404, "no script\n") : script.answer(request);
            } catch (Exception e) {
                answer = Answer.of(500, "script failed: " + e + "\n");
            }
            answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.getRequestBody().readAllBytes();
            if (answer.body() == null) {
                exchange.sendResponseHeaders(answer.status(), -1);
            } else {
                byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(answer.status(), body.length);
                exchange.getResponseBody().write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
