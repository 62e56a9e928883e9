package io.elastikey.keyserver;

import io.elastikey.keyserver.config.ConfigSource;
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

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;

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
        this.settings.putIfAbsent("keys.expected", "4096");
        this.settings.putIfAbsent("admin.listen", "127.0.0.1:0");
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
        List<TestKey> added = new ArrayList<>();
        List<KeyEntry> entries = new ArrayList<>();
        for (KeyType type : types) {
            KeyPair pair = TestKeys.of(type);
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

    KeyServerFixture start() throws Exception {
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
        HttpRequest request = HttpRequest.newBuilder(uri())
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> admin(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(adminUri(path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        stop();
    }

    /** A key the server holds, with its public half and certificate for checking answers. */
    record TestKey(KeyType type, KeyPair pair, X509Certificate certificate) {
    }
}
