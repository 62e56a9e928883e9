// DemoClient -- the demo's requests through the edge: handshakes of each kind, cached content, curl.
package io.elastikey.launcher.demo;

import io.elastikey.edge.EdgeServer;
import io.elastikey.keyserver.KeyServer;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;

/**
 * Talks to the edge as a browser would, trusting only the development CA, and reads the key server's own
 * metrics around each handshake, so the output shows the private-key operation leaving the edge.
 */
final class DemoClient {
    private final DemoSetup setup;
    private final EdgeServer edge;
    private final KeyServer keyServer;
    private final PrintStream out;
    private final SSLContext tls;
    private final HttpClient admin = HttpClient.newHttpClient();

    DemoClient(DemoSetup setup, EdgeServer edge, KeyServer keyServer, PrintStream out) throws Exception {
        this.setup = setup;
        this.edge = edge;
        this.keyServer = keyServer;
        this.out = out;
        this.tls = trustingDevelopmentCa();
    }

    void showHandshakes() throws Exception {
        out.println("Handshakes through the edge (a JDK TLS client; the key server does each private-key operation):");
        // A client context per full handshake: the JDK client would otherwise offer the first session again.
        SSLContext first = trustingDevelopmentCa();
        handshake(first, setup.ecName(), "TLSv1.3", null, "ECDSA signature");
        handshake(trustingDevelopmentCa(), setup.rsaName(), "TLSv1.3", null, "RSA-PSS signature");
        handshake(trustingDevelopmentCa(), setup.ecName(), "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                "ECDSA signature");
        handshake(trustingDevelopmentCa(), setup.rsaName(), "TLSv1.2", "TLS_RSA_WITH_AES_128_GCM_SHA256",
                "RSA key exchange: the key server decrypts");
        handshake(first, setup.ecName(), "TLSv1.3", null, "the session ticket of the first handshake");
        out.println();
    }

    private void handshake(SSLContext tls, String serverName, String protocol, String cipher, String what)
            throws Exception {
        long keyOpsBefore = keyServerOperations();
        long resumedBefore = edge.metrics().handshakes(true);
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", edge.address().getPort())) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setServerNames(List.of(new SNIHostName(serverName)));
            parameters.setProtocols(new String[] {protocol});
            if (cipher != null) {
                parameters.setCipherSuites(new String[] {cipher});
            }
            parameters.setApplicationProtocols(new String[] {"http/1.1"});
            socket.setSSLParameters(parameters);
            long start = System.nanoTime();
            socket.startHandshake();
            double millis = (System.nanoTime() - start) / 1e6;
            // Reading an answer also reads TLS 1.3's session ticket, which the last handshake resumes with.
            String status = get(socket, serverName);
            boolean resumed = edge.metrics().handshakes(true) > resumedBefore;
            long keyOpsAfter = keyServerOperations();
            out.printf("  %-7s %-40s %-14s %-7s %6.1f ms  key-server operations +%d (%,d -> %,d)  (%s)  %s%n",
                    socket.getSession().getProtocol(), socket.getSession().getCipherSuite(), serverName,
                    resumed ? "resumed" : "full", millis, keyOpsAfter - keyOpsBefore, keyOpsBefore, keyOpsAfter,
                    what, status);
        }
    }

    private static String get(SSLSocket socket, String host) throws IOException {
        socket.getOutputStream().write(("GET /hello HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        return answer.lines().findFirst().orElse("(no answer)");
    }

    void showContent() throws Exception {
        out.println("Content through the edge (JDK HTTP client, HTTP/2; the edge caches the origin's answers):");
        HttpClient client = HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(5)).build();
        URI uri = URI.create("https://127.0.0.1:" + edge.address().getPort() + "/hello");
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).build(),
                    HttpResponse.BodyHandlers.ofString());
            out.printf("  GET %s  %s %d  X-Cache: %s  %s  \"%s\"%n", uri.getPath(),
                    response.version() == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1", response.statusCode(),
                    response.headers().firstValue("x-cache").orElse("-"),
                    response.sslSession().map(s -> s.getProtocol() + " " + s.getCipherSuite()).orElse(""),
                    response.body().strip());
            edge.awaitCacheWrites(); // the cache stores asynchronously; the repeat must find the answer there
        }
        out.println();
    }

    void showCurl() throws Exception {
        Process probe;
        try {
            probe = new ProcessBuilder("curl", "--version").redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            probe.waitFor();
        } catch (IOException e) {
            out.println("curl is not installed; skipping the curl request.");
            return;
        }
        List<String> command = List.of("curl", "-sS", "-v", "--max-time", "10", "--cacert", setup.caFile().toString(),
                "https://127.0.0.1:" + edge.address().getPort() + "/hello");
        out.println("curl through the edge:");
        out.println("  $ " + String.join(" ", command));
        Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        curl.waitFor();
        output.lines().filter(l -> l.contains("SSL connection using") || l.startsWith("< HTTP/")
                        || l.toLowerCase().startsWith("< x-cache") || l.contains("ALPN: server accepted"))
                .forEach(l -> out.println("  " + l.strip()));
    }

    static String curlCommand(DemoSetup setup, EdgeServer edge) {
        return "curl -i --cacert " + setup.caFile() + " https://localhost:" + edge.address().getPort() + "/hello";
    }

    /** The key server's successful SKI operations so far, read from its Prometheus endpoint. */
    private long keyServerOperations() throws Exception {
        URI metrics = URI.create("http://127.0.0.1:" + keyServer.adminAddress().getPort() + "/metrics");
        String text = admin.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()).body();
        return (long) text.lines().filter(l -> l.startsWith("elastikey_ski_requests_total{")
                        && l.contains("result=\"ok\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private SSLContext trustingDevelopmentCa() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("elastikey-dev-ca", setup.pki().ca().certificate());
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
