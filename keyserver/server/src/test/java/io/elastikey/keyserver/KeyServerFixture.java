package io.elastikey.keyserver;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.TlsContexts;
import io.elastikey.protocol.pki.Validity;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A real key server for tests: its own data directory with the development PKI, keys added
 * before start, listening on ephemeral loopback ports. Requests go through the JDK's own
 * {@link HttpClient} over mutual TLS, an SKI client written by someone else, speaking HTTP/1.1
 * or HTTP/2 as asked.
 */
final class KeyServerFixture implements AutoCloseable {
    private final Path dataDir;
    private final Map<String, String> settings;
    private final DevPki pki;
    private KeyServer server;

    private KeyServerFixture(Path dataDir, Map<String, String> settings) throws Exception {
        this.dataDir = dataDir;
        this.settings = new HashMap<>(settings);
        this.settings.put("data", dataDir.toString());
        this.settings.putIfAbsent("listen", "127.0.0.1:0");
        this.settings.putIfAbsent("warmup.exercise", "0s"); // a test server need not be warm; WarmStartTest is
        this.settings.putIfAbsent("warmup.requests", "0s");
        this.settings.putIfAbsent("keys.expected", "4096");
        this.settings.putIfAbsent("admin.listen", "127.0.0.1:0");
        this.settings.putIfAbsent("keyless.listen", "127.0.0.1:0");
        this.settings.putIfAbsent("dev", "true"); // the development policy, unless a test writes its own
        this.pki = DevPki.loadOrCreate(dataDir.resolve("pki"));
    }

    /** A fixture whose server is not started yet, so keys can be added first. */
    static KeyServerFixture create(Path dataDir, Map<String, String> settings) throws Exception {
        return new KeyServerFixture(dataDir, settings);
    }

    KeyServerConfig config() throws Exception {
        return KeyServerConfig.from(new ConfigSource(settings, Map.of(), null));
    }

    /** Adds one key of each type in {@code types}, certified by the dev CA; returns them in order. */
    List<TestKey> addKeys(List<KeyType> types, Set<String> tags) throws Exception {
        List<KeyPair> pairs = new ArrayList<>();
        for (KeyType type : types) {
            pairs.add(TestKeys.of(type)); // shared by every test: the same pair for a type, each time
        }
        return addKeys(types, pairs, tags);
    }

    /** Adds a key of a new pair of {@code type}, one no other test holds. */
    TestKey addNewKey(KeyType type, Set<String> tags) throws Exception {
        return addKeys(List.of(type), List.of(type.generate()), tags).get(0);
    }

    private List<TestKey> addKeys(List<KeyType> types, List<KeyPair> pairs, Set<String> tags) throws Exception {
        List<TestKey> added = new ArrayList<>();
        List<KeyEntry> entries = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            KeyType type = types.get(i);
            KeyPair pair = pairs.get(i);
            String name = type.cliName() + ".keys.example.test";
            X509Certificate certificate = pki.ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER,
                    name, List.of(name), Validity.days(30));
            entries.add(KeyEntry.generated(pair, List.of(certificate), tags));
            added.add(new TestKey(type, pair, certificate));
        }
        try (KeyRepository repository = KeyRepository.open(config(), CryptoProvider.select(ProviderChoice.AUTO)
                .keyParser())) {
            repository.addAll(entries);
        }
        return added;
    }

    /**
     * Starts the server and waits until it has loaded its keys into the parsed-key cache (the hot-key reload, or the
     * walk of the store when there is no hot-key file), so that a test reads a settled cache.
     */
    KeyServerFixture start() throws Exception {
        startServing();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        ScrapedMetrics metrics = metrics();
        while (metrics.value("elastikey_keys_reload_loaded") < metrics.value("elastikey_keys_reload_planned")
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
            metrics = metrics();
        }
        return this;
    }

    /** Starts the server and returns once it serves, while it may still be loading keys into its cache. */
    KeyServerFixture startServing() throws Exception {
        server = KeyServer.start(config());
        return this;
    }

    void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    KeyServer server() {
        return server;
    }

    DevPki pki() {
        return pki;
    }

    Path dataDir() {
        return dataDir;
    }

    URI uri() {
        return URI.create("https://127.0.0.1:" + server.address().getPort() + "/");
    }

    URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + server.adminAddress().getPort() + path);
    }

    /** An HTTP client presenting the dev client certificate. */
    HttpClient client(HttpClient.Version version) throws Exception {
        return client(version, pki.client());
    }

    HttpClient client(HttpClient.Version version, IssuedCertificate identity) throws Exception {
        SSLContext tls = TlsContexts.of(identity, pki.ca().certificate());
        return HttpClient.newBuilder().version(version).sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** Posts {@code json} as an SKI request. */
    HttpResponse<String> post(HttpClient client, String json) throws Exception {
        return send(client, request("/").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** A request to {@code path} on the SKI endpoint, with a generous timeout and nothing else set. */
    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(uri().resolve(path)).timeout(Duration.ofSeconds(30));
    }

    HttpResponse<String> send(HttpClient client, HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> admin(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(adminUri(path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The admin endpoint's {@code /metrics}, parsed. */
    ScrapedMetrics metrics() throws Exception {
        HttpResponse<String> response = admin("/metrics");
        if (response.statusCode() != 200) {
            throw new IOException("/metrics answered " + response.statusCode());
        }
        return ScrapedMetrics.parse(response.body());
    }

    /**
     * A TLS context trusting the dev CA and presenting {@code identity} whatever the server asks for (no client
     * certificate at all when {@code null}). Unlike the JDK's own key manager it never withholds an expired
     * certificate or one from a CA the server did not name, so refusals are the server's doing.
     */
    SSLContext tls(IssuedCertificate identity) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", pki.ca().certificate());
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance("PKIX");
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        KeyManager[] keyManagers = identity == null ? null : new KeyManager[] {new FixedKeyManager(identity)};
        context.init(keyManagers, trustManagers.getTrustManagers(), null);
        return context;
    }

    /**
     * A raw TLS connection to the SKI port with the handshake started (no ALPN, so HTTP/1.1). With TLS 1.3 a
     * refused client certificate shows only on the first read.
     */
    SSLSocket connect(SSLContext tls) throws IOException {
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                server.address().getPort());
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }

    /** The policy file the server reads ({@code policy} setting). */
    Path policyFile() throws Exception {
        return config().policyFile();
    }

    /** Writes the policy file, replacing any previous one atomically, as an operator's deploy tool would. */
    void writePolicy(String text) throws Exception {
        replaceFile(policyFile(), text.getBytes(StandardCharsets.UTF_8));
    }

    /** A policy line selecting {@code identity} by its certificate fingerprint. */
    static String fingerprintOf(IssuedCertificate identity) throws Exception {
        return ClientIdentity.of(identity.certificate()).fingerprint();
    }

    /** Replaces {@code file} by renaming a sibling over it, so a reader never sees half a file. */
    static void replaceFile(Path file, byte[] content) throws IOException {
        Path temporary = file.resolveSibling("." + file.getFileName() + ".new");
        Files.write(temporary, content);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Waits until {@code condition} holds, polling; fails after ten seconds. Only for changes that happen
     * asynchronously (file reloads, metrics counted after an answer was sent); nothing is asserted about time.
     */
    static void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.call()) {
                    return;
                }
                last = null;
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(50);
        }
        AssertionError failure = new AssertionError("gave up waiting until " + what);
        if (last != null) {
            failure.initCause(last);
        }
        throw failure;
    }

    @Override
    public void close() {
        stop();
    }

    /** Presents one identity, unconditionally. */
    private static final class FixedKeyManager extends X509ExtendedKeyManager {
        private static final String ALIAS = "identity";
        private final IssuedCertificate identity;

        FixedKeyManager(IssuedCertificate identity) {
            this.identity = identity;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return ALIAS;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return ALIAS;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {ALIAS};
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return identity.chainArray();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return identity.privateKey();
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }
    }

    /** A key the server holds, with its public half and certificate for checking answers. */
    record TestKey(KeyType type, KeyPair pair, X509Certificate certificate) {
    }
}
