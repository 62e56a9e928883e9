// TestKeyData -- a data directory as the key server and the edge would find it: sealed keys, edge certificates.
package io.elastikey.perf.handshake;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.EnumMap;
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
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;

/**
 * One key per type, certified by the directory's dev CA for {@code <type>.edge.test} and stored (sealed) in the key
 * repository under {@code data}; each certificate chain is also written to {@code data/edge/certs}, where the edge
 * reads the certificates it presents.
 */
public record TestKeyData(KeyServerConfig config, DevPki pki, Map<KeyType, KeyPair> keys,
                   Map<KeyType, X509Certificate> certificates) {

    public static TestKeyData create(Path data, List<KeyType> types) throws Exception {
        KeyServerConfig config = KeyServerConfig.from(new ConfigSource(
                Map.of("data", data.toString(), "keys.expected", "4096"), Map.of(), null));
        DevPki pki = DevPki.loadOrCreate(data.resolve("pki"));
        Path edgeCertificates = Files.createDirectories(data.resolve("edge/certs"));
        Map<KeyType, KeyPair> keys = new EnumMap<>(KeyType.class);
        Map<KeyType, X509Certificate> certificates = new EnumMap<>(KeyType.class);
        List<KeyEntry> entries = new ArrayList<>();
        for (KeyType type : types) {
            KeyPair pair = TestKeys.of(type);
            String name = serverName(type);
            X509Certificate certificate = pki.ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER,
                    name, List.of(name), Validity.days(30));
            entries.add(KeyEntry.generated(pair, List.of(certificate), Set.of()));
            PemFiles.writeCertificates(edgeCertificates.resolve(name + ".pem"),
                    List.of(certificate, pki.ca().certificate()));
            keys.put(type, pair);
            certificates.put(type, certificate);
        }
        try (KeyRepository repository = KeyRepository.open(config,
                CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
            repository.addAll(entries);
        }
        return new TestKeyData(config, pki, keys, certificates);
    }

    static String serverName(KeyType type) {
        return type.cliName() + ".edge.test";
    }

    Path caFile() {
        return pki.directory().resolve(DevPki.CA_CERTIFICATE);
    }
}
