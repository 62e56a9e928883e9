package io.elastikey.edge.warmup;

import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.tls.CertificateRegistry;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WarmupCaseTest {
    @TempDir
    Path tmp;
    Path dir;
    CertificateAuthority ca;

    @BeforeEach
    void setUp() throws Exception {
        ca = DevPki.loadOrCreate(tmp.resolve("pki")).ca();
        dir = Files.createDirectories(tmp.resolve("certs"));
    }

    private void write(String file, KeyType type, String... names) throws Exception {
        KeyPair pair = TestKeys.of(type);
        X509Certificate leaf = ca.certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, names[0],
                List.of(names), Validity.days(1));
        PemFiles.writeCertificates(dir.resolve(file), List.of(leaf, ca.certificate()));
    }

    @Test
    void everyKeyOperationTheDefaultsAllowHasACase() throws Exception {
        write("a-ec.pem", KeyType.EC_P256, "www.example.test");
        write("b-rsa.pem", KeyType.RSA_2048, "www.example.test");
        write("c-ec.pem", KeyType.EC_P256, "other.example.test");

        List<WarmupCase> cases = WarmupCase.of(CertificateRegistry.load(dir, "a-ec.pem"),
                List.of("TLSv1.3", "TLSv1.2"), EdgeConfig.DEFAULT_CIPHERS);

        assertThat(cases).containsExactly(
                new WarmupCase("www.example.test", "EC", "TLSv1.3", null),
                new WarmupCase("www.example.test", "EC", "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
                new WarmupCase("www.example.test", "RSA", "TLSv1.3", null),
                new WarmupCase("www.example.test", "RSA", "TLSv1.2", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
                new WarmupCase("www.example.test", "RSA", "TLSv1.2", "TLS_RSA_WITH_AES_128_GCM_SHA256"));
    }

    @Test
    void onlyTheProtocolsAndSuitesTheEdgeEnables() throws Exception {
        write("rsa.pem", KeyType.RSA_2048, "rsa.example.test");
        CertificateRegistry registry = CertificateRegistry.load(dir, "rsa.pem");

        assertThat(WarmupCase.of(registry, List.of("TLSv1.3"), EdgeConfig.DEFAULT_CIPHERS))
                .containsExactly(new WarmupCase("rsa.example.test", "RSA", "TLSv1.3", null));
        assertThat(WarmupCase.of(registry, List.of("TLSv1.2"), List.of("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")))
                .as("no plain RSA key exchange offered when the edge does not enable it")
                .containsExactly(new WarmupCase("rsa.example.test", "RSA", "TLSv1.2",
                        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"));
    }

    @Test
    void aWildcardOnlyCertificateIsAskedForByANameUnderIt() throws Exception {
        write("wild.pem", KeyType.EC_P256, "*.shop.test");

        List<WarmupCase> cases = WarmupCase.of(CertificateRegistry.load(dir, "wild.pem"), List.of("TLSv1.3"),
                EdgeConfig.DEFAULT_CIPHERS);

        assertThat(cases).extracting(WarmupCase::serverName).containsExactly("warm-up.shop.test");
    }
}
