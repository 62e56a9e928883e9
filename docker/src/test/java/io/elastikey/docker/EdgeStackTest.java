// EdgeStackTest -- the suite as containers of the one image: a key server with its keys on a named volume, the
// sample origin, an edge server holding only certificates, and Prometheus scraping them. HTTPS through the edge
// container, keys surviving a key-server container's replacement, and every query of the Grafana dashboard
// answered with data by the running Prometheus.
package io.elastikey.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.containers.GenericContainer;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Containers are started once for the class (a JVM start in a container costs seconds); the tests run in order
 * because the last one replaces the key server's container. Every container uses the host's network and free
 * loopback ports, and everything is removed at the end, volumes included.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EdgeStackTest {

    private static final String SITE = "site-1.example.test";
    private static final Path DASHBOARD = Path.of(System.getProperty("elastikey.docker.dir", "."),
            "grafana", "elastikey-dashboard.json");

    private static final List<GenericContainer<?>> started = new ArrayList<>();
    private static String keyVolume;
    private static String edgeVolume;
    private static Path prometheusConfig;
    private static String caPem;
    private static int skiPort;
    private static int keyServerAdmin;
    private static int originPort;
    private static int edgePort;
    private static int edgeAdmin;
    private static int prometheusPort;
    private static GenericContainer<?> keyServer;

    @BeforeAll
    static void startStack() throws Exception {
        Docker.requireImages();
        keyVolume = Docker.newVolume("keys");
        edgeVolume = Docker.newVolume("edge");
        skiPort = Docker.freePort();
        keyServerAdmin = Docker.freePort();
        originPort = Docker.freePort();
        edgePort = Docker.freePort();
        edgeAdmin = Docker.freePort();
        prometheusPort = Docker.freePort();

        // Keys (and the development PKI and KEK with them) made by the image's own `keys` command, on the volume.
        Docker.Run keys = Docker.run(Docker.IMAGE, null, List.of("bash", "-c"), List.of(
                "(/opt/elastikey/bin/entrypoint keys generate --count 2 --type ec256 --name 'site-%d.example.test')"
                        + " && /opt/elastikey/bin/entrypoint keys export-public --chain --out-dir " + Docker.DATA
                        + "/export"),
                Duration.ofMinutes(3), keyVolume + ":" + Docker.DATA);
        assertThat(keys.exitCode()).as(keys.output()).isZero();
        // The edge's volume: certificates and the client credentials for the key server, never a private key.
        Docker.Run edge = Docker.run(Docker.IMAGE, "root", List.of("bash", "-c"), List.of(
                "set -e; d=" + Docker.DATA + "; mkdir -p $d/edge/certs $d/pki; cp /ks/export/*.pem $d/edge/certs/;"
                        + " cp /ks/pki/ca.pem /ks/pki/client.pem /ks/pki/client.key $d/pki/;"
                        + " chown -R elastikey:elastikey $d; cat /ks/pki/ca.pem"),
                Duration.ofMinutes(1), keyVolume + ":/ks", edgeVolume + ":" + Docker.DATA);
        assertThat(edge.exitCode()).as(edge.output()).isZero();
        Matcher pem = Pattern.compile("-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----")
                .matcher(edge.output());
        assertThat(pem.find()).as(edge.output()).isTrue();
        caPem = pem.group();

        keyServer = startKeyServer();
        start(Docker.container(Docker.IMAGE).withCommand("origin", "--listen", "127.0.0.1:" + originPort));
        start(Docker.container(Docker.IMAGE, edgeVolume + ":" + Docker.DATA).withCommand("edge",
                "--set", "listen=127.0.0.1:" + edgePort, "--set", "admin.listen=127.0.0.1:" + edgeAdmin,
                "--set", "keyservers=127.0.0.1:" + skiPort, "--set", "keyservers.server-name=localhost",
                "--set", "origin=http://127.0.0.1:" + originPort,
                // A cold key server on a loaded build machine: generous limits, so no breaker opens at the start.
                "--set", "keyservers.timeout=10s", "--set", "keyservers.deadline=30s"));
        prometheusConfig = Docker.writeTemp("prometheus", prometheusConfig());
        start(Docker.container(Docker.PROMETHEUS_IMAGE, prometheusConfig + ":/etc/prometheus/prometheus.yml")
                .withCommand("--config.file=/etc/prometheus/prometheus.yml",
                        "--storage.tsdb.path=/var/lib/prometheus",
                        "--web.listen-address=127.0.0.1:" + prometheusPort));

        Docker.awaitTrue("the key server's /readyz", Duration.ofMinutes(3),
                () -> Docker.answers200("http://127.0.0.1:" + keyServerAdmin + "/readyz"));
        Docker.awaitTrue("the origin's /healthz", Duration.ofMinutes(2),
                () -> Docker.answers200("http://127.0.0.1:" + originPort + "/healthz"));
        Docker.awaitTrue("the edge's /readyz", Duration.ofMinutes(3),
                () -> Docker.answers200("http://127.0.0.1:" + edgeAdmin + "/readyz"));
        Docker.awaitTrue("Prometheus's /-/ready", Duration.ofMinutes(1),
                () -> Docker.answers200("http://127.0.0.1:" + prometheusPort + "/-/ready"));
    }

    @AfterAll
    static void stopStack() throws Exception {
        for (GenericContainer<?> c : started) {
            c.stop();
        }
        if (keyVolume != null) {
            Docker.removeVolume(keyVolume);
            Docker.removeVolume(edgeVolume);
        }
        if (prometheusConfig != null) {
            Files.deleteIfExists(prometheusConfig);
        }
    }

    @Test
    @Order(1)
    void httpsThroughTheEdgeContainerIsSignedByTheKeyServerContainer() throws Exception {
        double before = signedByKeyServer();

        String answer = httpsGet("/hello");

        assertThat(answer).startsWith("HTTP/1.1 200").contains("hello from the elastikey sample origin");
        assertThat(signedByKeyServer()).isGreaterThan(before);
    }

    @Test
    @Order(2)
    void theImagesHealthCheckReportsTheKeyServerHealthy() throws Exception {
        Docker.awaitTrue("Docker's health status of the key server 'healthy'", Duration.ofMinutes(2),
                () -> "healthy".equals(Docker.client().inspectContainerCmd(keyServer.getContainerId()).exec()
                        .getState().getHealth().getStatus()));
    }

    @Test
    @Order(3)
    void everyQueryOfTheGrafanaDashboardReturnsDataFromPrometheus() throws Exception {
        List<String> queries = dashboardQueries();
        assertThat(queries).hasSizeGreaterThan(10);

        List<String> withoutData = new ArrayList<>(queries);
        try {
            Docker.awaitTrue("data for every dashboard query", Duration.ofMinutes(3), () -> {
                sendTraffic();
                withoutData.removeIf(EdgeStackTest::returnsData);
                return withoutData.isEmpty();
            });
        } catch (AssertionError e) {
            assertThat(withoutData).as("dashboard queries Prometheus answered without any series").isEmpty();
        }
    }

    @Test
    @Order(4)
    void keysOnTheVolumeSurviveTheKeyServerContainersReplacement() throws Exception {
        keyServer.stop();
        started.remove(keyServer);
        keyServer = startKeyServer();
        Docker.awaitTrue("the new key server's /readyz", Duration.ofMinutes(3),
                () -> Docker.answers200("http://127.0.0.1:" + keyServerAdmin + "/readyz"));
        Docker.awaitTrue("the edge's pool sees the key server again", Duration.ofMinutes(1),
                () -> Docker.answers200("http://127.0.0.1:" + edgeAdmin + "/readyz"));

        String answer = httpsGet("/hello");

        assertThat(answer).startsWith("HTTP/1.1 200");
        assertThat(signedByKeyServer()).as("signatures by the new key server process").isPositive();
    }

    /**
     * A request through the edge, so that rates have two samples that differ. Only traffic: a handshake the edge
     * fails now and then on a loaded machine (key-server deadline) is counted by the very metrics under test, and
     * the first test is the one that requires HTTPS to work.
     */
    private static void sendTraffic() {
        try {
            httpsGet("/hello");
        } catch (Exception e) {
            // See above.
        }
    }

    private static GenericContainer<?> startKeyServer() {
        return start(Docker.container(Docker.IMAGE, keyVolume + ":" + Docker.DATA).withCommand("keyserver", "--dev",
                "--set", "listen=127.0.0.1:" + skiPort, "--set", "admin.listen=127.0.0.1:" + keyServerAdmin,
                "--set", "keyless.listen=off")
                .withEnv("ELASTIKEY_ADMIN_LISTEN", "127.0.0.1:" + keyServerAdmin));
    }

    private static GenericContainer<?> start(GenericContainer<?> c) {
        c.start();
        started.add(c);
        return c;
    }

    private static String prometheusConfig() {
        return "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                + "scrape_configs:\n"
                + "  - job_name: keyserver\n"
                + "    static_configs: [{targets: ['127.0.0.1:" + keyServerAdmin + "'], labels: {instance_name: keyserver}}]\n"
                + "  - job_name: edge\n"
                + "    static_configs: [{targets: ['127.0.0.1:" + edgeAdmin + "'], labels: {instance_name: edge}}]\n";
    }

    /** SIGN operations the key server answered ok, from its own /metrics. */
    private static double signedByKeyServer() throws Exception {
        var r = Docker.get("http://127.0.0.1:" + keyServerAdmin + "/metrics");
        assertThat(r).isNotNull();
        Matcher m = Pattern.compile("(?m)^elastikey_ski_requests_total\\{method=\"SIGN\",result=\"ok\"} (\\S+)$")
                .matcher(r.body());
        assertThat(m.find()).as("SIGN ok counter in the key server's metrics").isTrue();
        return Double.parseDouble(m.group(1));
    }

    /**
     * One HTTP/1.1 GET through the edge with a new TLS context each time, so every call is a full handshake whose
     * signature the key server makes (a cached session would skip it). SNI picks the certificate; the name is
     * checked against it and the chain against the development CA from the key server's volume.
     */
    private static String httpsGet(String path) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII))));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        try (Socket raw = new Socket("127.0.0.1", edgePort);
             SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(raw, SITE, edgePort, true)) {
            SSLParameters parameters = tls.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            parameters.setServerNames(List.of(new SNIHostName(SITE)));
            tls.setSSLParameters(parameters);
            tls.setSoTimeout(30_000);
            tls.startHandshake();
            tls.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + SITE
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            tls.getOutputStream().flush();
            return new String(tls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Every PromQL expression of the dashboard, with Grafana's $__rate_interval as Prometheus would get it. */
    private static List<String> dashboardQueries() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                queries.add(target.get("expr").asText().replace("$__rate_interval", "15s"));
            }
        }
        return queries;
    }

    /** True when Prometheus answers the instant query with at least one series. */
    private static boolean returnsData(String query) {
        try {
            var r = Docker.get("http://127.0.0.1:" + prometheusPort + "/api/v1/query?query="
                    + URLEncoder.encode(query, StandardCharsets.UTF_8));
            if (r == null || r.statusCode() != 200) {
                return false;
            }
            JsonNode answer = new ObjectMapper().readTree(r.body());
            return "success".equals(answer.path("status").asText())
                    && answer.path("data").path("result").size() > 0;
        } catch (Exception e) {
            return false;
        }
    }
}
