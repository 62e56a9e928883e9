// SuiteData -- the files the soak and chaos servers read: a development PKI, one site key sealed in each store, its chain.
package io.elastikey.perf.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
import io.elastikey.protocol.pki.Validity;

/**
 * What {@code ./elastikey demo} writes before it starts its three servers, made here so that one key can go into
 * several stores: the development PKI in {@code <first>/pki} (the key servers' and the edge's mutual-TLS identities
 * and the CA the load generator trusts), an ECDSA P-256 key for {@link #SERVER_NAME} sealed under one KEK in every
 * key server's store (an ElasticStore in a data directory, or Redis through a {@code store} URI), and only its
 * certificate chain in the edge's directory. Every further key server data directory gets a copy of the first's
 * {@code pki/} and {@code kek}, as a fleet shares its PKI and KEK. A key server started on one of these directories
 * with {@code --dev} writes a policy granting the development client every key.
 */
record SuiteData(Path pki, Path caFile, Path edgeCertificates, String serverName) {
    static final String SERVER_NAME = "soak.elastikey.test";

    /**
     * @param keyServers each key server's data directory, with its {@code store} setting or null for the default
     *                   ElasticStore in {@code <data>/keys}; the first one's PKI and KEK are everyone's
     * @param edgeData   the edge's data directory; the chain goes to {@code <edgeData>/edge/certs}
     */
    static SuiteData prepare(Map<Path, String> keyServers, Path edgeData) throws Exception {
        Map<Path, String> servers = new LinkedHashMap<>(keyServers);
        Path first = servers.keySet().iterator().next();
        DevPki pki = DevPki.loadOrCreate(first.resolve("pki"));
        KeyPair pair = KeyType.EC_P256.generate();
        X509Certificate leaf = pki.ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, SERVER_NAME,
                List.of(SERVER_NAME), Validity.days(30));
        KeyEntry entry = KeyEntry.generated(pair, List.of(leaf), Set.of("soak"));
        for (Map.Entry<Path, String> server : servers.entrySet()) {
            Path data = server.getKey();
            if (!data.equals(first)) {
                copyTree(first.resolve("pki"), data.resolve("pki"));
                Files.copy(first.resolve("kek"), data.resolve("kek"), StandardCopyOption.REPLACE_EXISTING);
            }
            Map<String, String> settings = new LinkedHashMap<>(Map.of("data", data.toString(),
                    "keys.expected", "1024", "store.memory", "16m"));
            if (server.getValue() != null) {
                settings.put("store", server.getValue());
            }
            KeyServerConfig config = KeyServerConfig.from(new ConfigSource(settings, Map.of(), null));
            try (KeyRepository keys = KeyRepository.open(config,
                    CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
                keys.addAll(List.of(entry));
            }
        }
        Path certificates = Files.createDirectories(edgeData.resolve("edge").resolve("certs"));
        PemFiles.writeCertificates(certificates.resolve(SERVER_NAME + ".pem"), List.of(leaf, pki.ca().certificate()));
        Path ca = pki.directory().resolve(DevPki.CA_CERTIFICATE);
        return new SuiteData(pki.directory(), ca, certificates, SERVER_NAME);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }
}
