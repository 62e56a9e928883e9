package io.elastikey.protocol.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Routes a server adds to the admin endpoint, over a real socket: method, parameters, late answers, errors. */
class AdminRouteTest {
    static AdminServer server;
    static final CompletableFuture<AdminRoute.Reply> later = new CompletableFuture<>();
    static final CompletableFuture<Void> asked = new CompletableFuture<>();
    static final AtomicReference<String> scrapedOn = new AtomicReference<>();

    /** The metrics text, noting the thread that was asked for it. */
    static String scrape() {
        scrapedOn.set(Thread.currentThread().getName());
        return "# metrics\n";
    }

    @BeforeAll
    static void start() throws Exception {
        server = AdminServer.start(new InetSocketAddress("127.0.0.1", 0), AdminRouteTest::scrape, () -> true,
                List.of(new AdminRoute("POST", "/echo", p -> {
                    if (p.containsKey("bad")) {
                        throw new IllegalArgumentException("bad parameter");
                    }
                    return CompletableFuture.completedFuture(AdminRoute.Reply.json(200, "{\"x\": \""
                            + p.get("x").get(0) + "\"}"));
                }), new AdminRoute("POST", "/later", p -> {
                    asked.complete(null);
                    return later;
                })));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> send(String method, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.address().getPort() + path)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRouteAnswersItsMethodWithItsParameters() throws Exception {
        HttpResponse<String> r = send("POST", "/echo?x=%2Fa%3Fb");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(r.body()).isEqualTo("{\"x\": \"/a?b\"}");
        assertThat(send("GET", "/echo?x=1").statusCode()).isEqualTo(405);
        assertThat(send("POST", "/echo?bad").statusCode()).isEqualTo(400);
        assertThat(send("POST", "/echo?bad").body()).contains("bad parameter");
        assertThat(send("GET", "/metrics").body()).isEqualTo("# metrics\n");
        assertThat(send("POST", "/metrics").statusCode()).isEqualTo(405);
    }

    @Test
    void aRouteMayAnswerLater() throws Exception {
        CompletableFuture<HttpResponse<String>> r = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.address().getPort() + "/later"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        asked.get(30, TimeUnit.SECONDS);
        assertThat(r).isNotDone();
        later.complete(AdminRoute.Reply.json(200, "{}"));
        assertThat(r.get(30, TimeUnit.SECONDS).body()).isEqualTo("{}");
    }

    @Test
    void aScrapeRunsOnTheAdminEndpointsOwnThreadNotOnAServersRequestLoops() throws Exception {
        HttpResponse<String> r = send("GET", "/metrics");
        assertThat(r.body()).isEqualTo("# metrics\n");
        assertThat(scrapedOn.get()).startsWith("admin-");
    }

    /** Writes {@code request} raw and returns the status line of the answer. */
    private static String raw(String request) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.address().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            socket.shutdownOutput();
            return new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.ISO_8859_1)).readLine();
        }
    }

    @Test
    void whatIsNotAReadableRequestIsAnsweredAsSuchNotRouted() throws Exception {
        assertThat(raw("HELLO\r\n\r\n")).isEqualTo("HTTP/1.1 400 Bad Request");
        assertThat(raw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(100_000) + "\r\n\r\n"))
                .isEqualTo("HTTP/1.1 431 Request Header Fields Too Large");
        assertThat(raw("GET /" + "a".repeat(5_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"))
                .isEqualTo("HTTP/1.1 414 Request-URI Too Long");
        assertThat(raw("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void builtInPathsCannotBeTaken() {
        assertThatThrownBy(() -> AdminServer.start(new InetSocketAddress("127.0.0.1", 0), () -> "", () -> true,
                List.of(new AdminRoute("POST", "/metrics", p -> null)))).hasMessageContaining("taken");
    }
}
