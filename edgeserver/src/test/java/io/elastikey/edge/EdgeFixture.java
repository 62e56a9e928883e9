package io.elastikey.edge;

import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The whole suite on loopback for edge tests: a development PKI, an ECDSA P-256 key for {@code ec.edge.test}
 * and an RSA-2048 key for {@code rsa.edge.test} (both certificates also name 127.0.0.1, so the JDK client can
 * connect by address and still verify), key servers holding those keys, the sample origin, and an edge whose
 * certificate directory holds only the chains.
 */
final class EdgeFixture implements AutoCloseable {
    static final String EC_NAME = "ec.edge.test";
    static final String RSA_NAME = "rsa.edge.test";

    private final Path root;
    private final DevPki pki;
    private final List<KeyEntry> keys = new ArrayList<>();
    private final List<AutoCloseable> started = new ArrayList<>();
    private final Map<String, X509Certificate> certificates = new HashMap<>();

    private EdgeFixture(Path root) throws Exception {
        this.root = root;
        this.pki = DevPki.loadOrCreate(root.resolve("pki"));
        Path dir = Files.createDirectories(root.resolve("edge").resolve("certs"));
        for (KeyType type : List.of(KeyType.EC_P256, KeyType.RSA_2048)) {
            KeyPair pair = TestKeys.of(type);
            String name = type == KeyType.EC_P256 ? EC_NAME : RSA_NAME;
            X509Certificate leaf = pki.ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, name,
                    List.of(name, "127.0.0.1"), Validity.days(30));
            keys.add(KeyEntry.generated(pair, List.of(leaf), Set.of()));
            certificates.put(name, leaf);
            PemFiles.writeCertificates(dir.resolve(name + ".pem"), List.of(leaf, pki.ca().certificate()));
        }
    }

    static EdgeFixture create(Path root) throws Exception {
        return new EdgeFixture(root);
    }

    DevPki pki() {
        return pki;
    }

    Path root() {
        return root;
    }

    X509Certificate certificate(String name) {
        return certificates.get(name);
    }

    /** A key server data directory of its own (stores cannot be shared), with the same PKI and keys. */
    Path keyServerData(int index) throws Exception {
        Path data = root.resolve("keyserver-" + index);
        if (Files.exists(data.resolve("keys"))) {
            return data;
        }
        Path pkiCopy = Files.createDirectories(data.resolve("pki"));
        try (Stream<Path> files = Files.list(pki.directory())) {
            for (Path file : files.toList()) {
                Files.copy(file, pkiCopy.resolve(file.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
        try (KeyRepository repository = KeyRepository.open(keyServerConfig(data, 0),
                CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
            repository.addAll(keys);
        }
        return data;
    }

    static KeyServerConfig keyServerConfig(Path data, int port) throws IOException {
        return keyServerConfig(data, port, Map.of());
    }

    /** The test key server's settings, {@code extra} overriding them. */
    static KeyServerConfig keyServerConfig(Path data, int port, Map<String, String> extra) throws IOException {
        Map<String, String> settings = new HashMap<>(Map.of("data", data.toString(),
                "listen", "127.0.0.1:" + port, "admin.listen", "127.0.0.1:0", "keyless.listen", "127.0.0.1:0",
                "keys.expected", "1024", "store.memory", "8m", "io.threads", "1", "crypto.workers", "2",
                "warmup.exercise", "0s", "dev", "true"));
        settings.put("warmup.requests", "0s");
        settings.putAll(extra);
        return KeyServerConfig.from(new ConfigSource(settings, Map.of(), null));
    }

    /** Key server {@code index} in this JVM, on {@code port} (0: any). */
    KeyServer startKeyServer(int index, int port) throws Exception {
        return startKeyServer(index, port, Map.of());
    }

    /** Key server {@code index} in this JVM, on {@code port} (0: any), {@code settings} overriding the defaults. */
    KeyServer startKeyServer(int index, int port, Map<String, String> settings) throws Exception {
        KeyServer server = KeyServer.start(keyServerConfig(keyServerData(index), port, settings));
        started.add(server);
        return server;
    }

    /** Key server {@code index} in a JVM of its own, which a test can kill with SIGKILL. */
    KeyServerProcess startKeyServerProcess(int index) throws Exception {
        KeyServerProcess process = KeyServerProcess.start(keyServerData(index), root.resolve("keyserver-" + index
                + ".log"));
        started.add(process);
        return process;
    }

    SampleOrigin startOrigin() throws Exception {
        SampleOrigin origin = SampleOrigin.start(new InetSocketAddress("127.0.0.1", 0));
        started.add(origin);
        return origin;
    }

    /** An edge using {@code keyServers} and {@code origin}; {@code settings} override the test defaults. */
    EdgeServer startEdge(List<InetSocketAddress> keyServers, SampleOrigin origin, Map<String, String> settings)
            throws Exception {
        return startEdge(keyServers, origin.address(), settings);
    }

    /** A plain-HTTP origin scripted by the test, stopped with the suite. */
    ScriptedOrigin startScriptedOrigin() throws Exception {
        ScriptedOrigin origin = new ScriptedOrigin();
        started.add(origin);
        return origin;
    }

    /** An edge in front of the origin at {@code origin}. */
    EdgeServer startEdge(List<InetSocketAddress> keyServers, InetSocketAddress origin, Map<String, String> settings)
            throws Exception {
        Map<String, String> all = new HashMap<>(Map.of(
                "data", root.toString(),
                "listen", "127.0.0.1:0",
                "admin.listen", "127.0.0.1:0",
                "keyservers", String.join(",", keyServers.stream().map(a -> "127.0.0.1:" + a.getPort()).toList()),
                "keyservers.server-name", "localhost",
                "origin", "http://127.0.0.1:" + origin.getPort(),
                "certificates.default", EC_NAME + ".pem",
                "cache.memory", "8m",
                "io.threads", "2"));
        all.put("warmup.handshakes", "0s"); // the answers matter here, not the speed; EdgeWarmupTest runs one
        all.putAll(settings);
        EdgeServer edge = EdgeServer.start(EdgeConfig.of(all));
        started.add(edge);
        return edge;
    }

    /** A JDK client that trusts the dev CA and sends {@code serverName} as SNI. */
    HttpClient client(String serverName, String protocol, String cipher) throws Exception {
        SSLParameters parameters = new SSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(serverName)));
        parameters.setProtocols(new String[] {protocol});
        if (cipher != null) {
            parameters.setCipherSuites(new String[] {cipher});
        }
        return HttpClient.newBuilder().sslContext(trustingDevCa()).sslParameters(parameters)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    SSLContext trustingDevCa() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("ca", pki.ca().certificate());
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    static URI uri(EdgeServer edge, String path) {
        return URI.create("https://127.0.0.1:" + edge.address().getPort() + path);
    }

    /** Successful SKI operations a key server has answered, read from its Prometheus endpoint. */
    static long keyServerOperations(InetSocketAddress admin) throws Exception {
        return keyServerOperations(admin, "ski");
    }

    /** Successful operations a key server has answered over {@code protocol} ({@code ski} or {@code keyless}). */
    static long keyServerOperations(InetSocketAddress admin, String protocol) throws Exception {
        String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return (long) text.lines()
                .filter(l -> l.startsWith("elastikey_" + protocol + "_requests_total{") && l.contains("result=\"ok\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** A Prometheus sample of {@code admin}'s scrape: the sum of every line starting with {@code prefix}. */
    static double metric(InetSocketAddress admin, String prefix) throws Exception {
        String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin.getPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return text.lines().filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                System.err.println("closing " + started.get(i) + ": " + e);
            }
        }
        started.clear();
    }
}
