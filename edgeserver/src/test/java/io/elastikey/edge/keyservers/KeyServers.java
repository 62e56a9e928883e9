// KeyServers -- real key servers for the pool's tests: one dev PKI, one EC key in every store, loopback ports.
package io.elastikey.edge.keyservers;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.elastikey.keyserver.KeyServer;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;

/**
 * {@code count} key servers, each with its own data directory (a store allows one server), all holding a copy of
 * one development PKI, so one client certificate is trusted and granted everything by each, and each holding the
 * same EC P-256 key. A server can be stopped and started again on the port it had, as an operator restarts one.
 * Small settings keep them cheap: 4096 expected keys, a 16 MB memory tier, one I/O thread, one crypto worker.
 */
final class KeyServers implements AutoCloseable {
    private final Path[] dataDirs;
    private final KeyServer[] servers;
    private final int[] ports;
    private final DevPki pki;
    private final KeyPair key;

    private KeyServers(Path[] dataDirs, DevPki pki, KeyPair key) {
        this.dataDirs = dataDirs;
        this.servers = new KeyServer[dataDirs.length];
        this.ports = new int[dataDirs.length];
        this.pki = pki;
        this.key = key;
    }

    /** Creates the data directories under {@code root} and stores the key in each; starts nothing. */
    static KeyServers provision(Path root, int count) throws Exception {
        Path[] dirs = new Path[count];
        for (int i = 0; i < count; i++) {
            dirs[i] = root.resolve("keyserver-" + i);
        }
        DevPki pki = DevPki.loadOrCreate(dirs[0].resolve("pki"));
        KeyPair key = TestKeys.of(KeyType.EC_P256);
        String name = "ec256.keys.example.test";
        X509Certificate certificate = pki.ca().certify(key.getPublic(), CertificateAuthority.Purpose.SERVER, name,
                List.of(name), Validity.days(30));
        KeyEntry entry = KeyEntry.generated(key, List.of(certificate), Set.of());
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                copyDirectory(pki.directory(), dirs[i].resolve("pki"));
            }
            try (KeyRepository repository = KeyRepository.open(config(dirs[i], 0),
                    CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
                repository.add(entry);
            }
        }
        return new KeyServers(dirs, pki, key);
    }

    /** Starts server {@code i}, on the port it had before if it ran before (waiting while that port is busy). */
    void start(int i) throws Exception {
        long giveUp = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                servers[i] = KeyServer.start(config(dataDirs[i], ports[i]));
                ports[i] = servers[i].address().getPort();
                return;
            } catch (Exception e) {
                if (ports[i] == 0 || !addressInUse(e) || System.nanoTime() - giveUp > 0) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** Starts every server not running, so each test begins with all of them up. */
    void startStopped() throws Exception {
        for (int i = 0; i < servers.length; i++) {
            if (servers[i] == null) {
                start(i);
            }
        }
    }

    void stop(int i) {
        if (servers[i] != null) {
            servers[i].close();
            servers[i] = null;
        }
    }

    InetSocketAddress address(int i) {
        return new InetSocketAddress("127.0.0.1", ports[i]);
    }

    KeyServerEndpoint endpoint(int i) {
        return KeyServerEndpoint.of(address(i));
    }

    Path pkiDirectory() {
        return pki.directory();
    }

    DevPki pki() {
        return pki;
    }

    KeyPair key() {
        return key;
    }

    /** The name the edge sends for the key: its SPKI SHA-256. */
    String keyId() {
        return KeyIds.keyId(key.getPublic());
    }

    @Override
    public void close() {
        for (int i = 0; i < servers.length; i++) {
            stop(i);
        }
    }

    private static KeyServerConfig config(Path dataDir, int port) throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("data", dataDir.toString());
        settings.put("listen", "127.0.0.1:" + port);
        settings.put("admin.listen", "127.0.0.1:0");
        settings.put("keyless.listen", "127.0.0.1:0");
        settings.put("warmup.exercise", "0s");
        settings.put("warmup.requests", "0s");
        settings.put("keys.expected", "4096");
        settings.put("store.memory", "16m");
        settings.put("io.threads", "1");
        settings.put("crypto.workers", "1");
        settings.put("dev", "true"); // the development policy grants the dev client every key
        return KeyServerConfig.from(new ConfigSource(settings, Map.of(), null));
    }

    /** A bind failure, as the JDK (BindException) or Netty's epoll transport (errno text) reports it. */
    private static boolean addressInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException || String.valueOf(t.getMessage()).contains("in use")) {
                return true;
            }
        }
        return false;
    }

    private static void copyDirectory(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
    }
}
