// DemoSetup -- the demo's files: a development PKI, two keys in the key server, their certificates for the edge.
package io.elastikey.launcher.demo;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes what the three servers read: the development PKI in {@code <data>/pki} (the key server's and the
 * edge's mutual-TLS identities, and the CA a browser or curl must trust), an ECDSA P-256 key for
 * {@code localhost} and an RSA-2048 key for {@code rsa.localhost} sealed in the key server's store, and only
 * their certificate chains in the edge's directory {@code <data>/edge/certs}.
 */
record DemoSetup(DevPki pki, Path caFile, String ecName, String rsaName) {
    static final String DEFAULT_CERTIFICATE = "localhost-ecdsa.pem";

    static DemoSetup prepare(Path data, PrintStream out) throws Exception {
        DevPki pki = DevPki.loadOrCreate(data.resolve("pki"));
        Path certificates = Files.createDirectories(data.resolve("edge").resolve("certs"));
        KeyServerConfig config = KeyServerConfig.from(new io.elastikey.protocol.config.ConfigSource(
                Map.of("data", data.toString(), "keys.expected", "1024", "store.memory", "16m"), Map.of(), null));
        out.printf("Elastikey demo in %s%n", data);
        out.printf("  development CA %s%n", pki.directory().resolve(DevPki.CA_CERTIFICATE));
        try (KeyRepository keys = KeyRepository.open(config,
                CryptoProvider.select(ProviderChoice.AUTO).keyParser())) {
            if (keys.count() == 0) {
                add(keys, pki, KeyType.EC_P256, List.of("localhost", "127.0.0.1", "::1"),
                        certificates.resolve(DEFAULT_CERTIFICATE));
                add(keys, pki, KeyType.RSA_2048, List.of("rsa.localhost", "127.0.0.1"),
                        certificates.resolve("rsa.localhost-rsa.pem"));
            }
            out.printf("  key server     %d keys sealed in %s (ECDSA P-256 for localhost, RSA-2048 for "
                    + "rsa.localhost)%n", keys.count(), data.resolve("keys"));
        }
        out.printf("  edge server    certificate chains only, in %s%n", certificates);
        return new DemoSetup(pki, pki.directory().resolve(DevPki.CA_CERTIFICATE), "localhost", "rsa.localhost");
    }

    private static void add(KeyRepository keys, DevPki pki, KeyType type, List<String> names, Path chainFile)
            throws Exception {
        KeyPair pair = type.generate();
        X509Certificate leaf = pki.ca().certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, names.get(0),
                names, Validity.days(30));
        keys.addAll(List.of(KeyEntry.generated(pair, List.of(leaf), Set.of("demo"))));
        PemFiles.writeCertificates(chainFile, List.of(leaf, pki.ca().certificate()));
    }
}
