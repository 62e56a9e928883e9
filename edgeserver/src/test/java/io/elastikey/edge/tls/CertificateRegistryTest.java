package io.elastikey.edge.tls;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Pem;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CertificateRegistryTest {
    @TempDir
    Path tmp;
    Path dir;
    CertificateAuthority ca;

    @BeforeEach
    void setUp() throws Exception {
        ca = DevPki.loadOrCreate(tmp.resolve("pki")).ca();
        dir = Files.createDirectories(tmp.resolve("certs"));
    }

    private X509Certificate write(String file, KeyType type, String... names) throws Exception {
        KeyPair pair = TestKeys.of(type);
        X509Certificate leaf = ca.certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, names[0],
                List.of(names), Validity.days(1));
        PemFiles.writeCertificates(dir.resolve(file), List.of(leaf, ca.certificate()));
        return leaf;
    }

    @Test
    void sniPicksTheChainOfTheNameAndKeyType() throws Exception {
        X509Certificate ec = write("a-ec.pem", KeyType.EC_P256, "www.example.test");
        X509Certificate rsa = write("b-rsa.pem", KeyType.RSA_2048, "www.example.test");
        CertificateRegistry registry = CertificateRegistry.load(dir, "default.pem");

        assertThat(registry.select("www.example.test", "EC").leaf()).isEqualTo(ec);
        assertThat(registry.select("WWW.Example.TEST", "RSA").leaf()).isEqualTo(rsa);
        CertificateEntry entry = registry.select("www.example.test", "EC");
        assertThat(entry.keyId()).isEqualTo(KeyIds.keyId(ec.getPublicKey()));
        assertThat((X509Certificate[]) entry.chain()).containsExactly(ec, ca.certificate());
        assertThat(registry.byAlias(entry.alias())).isSameAs(entry);
        assertThat(registry.select("www.example.test", "DH_RSA")).isNull();
    }

    @Test
    void chainsKeepEncodingsAndShareOneObjectPerIssuer() throws Exception {
        X509Certificate first = write("a.pem", KeyType.EC_P256, "a.example.test");
        X509Certificate second = write("b.pem", KeyType.RSA_2048, "b.example.test");
        CertificateRegistry registry = CertificateRegistry.load(dir, "a.pem");

        CertificateEntry a = registry.select("a.example.test", "EC");
        CertificateEntry b = registry.select("b.example.test", "RSA");
        assertThat(a.leaf().getEncoded()).isEqualTo(first.getEncoded());
        assertThat(b.leaf().getEncoded()).isEqualTo(second.getEncoded());
        assertThat(a.chain()[1]).isSameAs(b.chain()[1]).isEqualTo(ca.certificate());
        assertThat(a.chain()[1].keyId()).isNull();
        assertThat(b.keyId()).isEqualTo(KeyIds.keyId(second.getPublicKey()));
        assertThat(a.file()).isEqualTo("a.pem");
    }

    @Test
    void aReloadReadsOnlyTheFilesThatChanged() throws Exception {
        write("a.pem", KeyType.EC_P256, "a.example.test");
        write("b.pem", KeyType.EC_P256, "b.example.test");
        write("c.pem", KeyType.EC_P256, "c.example.test");
        CertificateRegistry first = CertificateRegistry.load(dir, "a.pem");
        assertThat(first.filesRead()).isEqualTo(3);

        X509Certificate renewed = write("b.next", KeyType.EC_P256, "b.example.test"); // a new key, renamed over
        Files.move(dir.resolve("b.next"), dir.resolve("b.pem"), StandardCopyOption.REPLACE_EXISTING);
        write("d.pem", KeyType.EC_P256, "d.example.test");
        Files.delete(dir.resolve("c.pem"));
        CertificateRegistry second = CertificateRegistry.reload(dir, "a.pem", first);

        assertThat(second.filesRead()).isEqualTo(2);
        assertThat(second.select("a.example.test", "EC")).isSameAs(first.select("a.example.test", "EC"));
        assertThat(second.select("b.example.test", "EC").leaf()).isEqualTo(renewed);
        assertThat(second.select("b.example.test", "EC").keyId()).isEqualTo(KeyIds.keyId(renewed.getPublicKey()));
        assertThat(second.select("c.example.test", "EC").names()).as("gone: the default").containsExactly(
                "a.example.test");
        assertThat(second.select("d.example.test", "EC").names()).containsExactly("d.example.test");
        assertThat(second.select("d.example.test", "EC").chain()[1]).as("the issuer still shared")
                .isSameAs(second.select("a.example.test", "EC").chain()[1]);
        assertThat(CertificateRegistry.reload(dir, "a.pem", second).filesRead()).isZero();
    }

    @Test
    void aKnownNameNeverGetsAnotherNamesCertificate() throws Exception {
        write("a-default.pem", KeyType.EC_P256, "default.example.test");
        write("b-rsa-only.pem", KeyType.RSA_2048, "rsa-only.example.test");
        CertificateRegistry registry = CertificateRegistry.load(dir, "a-default.pem");

        assertThat(registry.select("rsa-only.example.test", "EC")).isNull();
        assertThat(registry.select("rsa-only.example.test", "RSA").names()).containsExactly("rsa-only.example.test");
        assertThat(registry.select("unknown.example.org", "EC").names()).containsExactly("default.example.test");
        assertThat(registry.select(null, "EC").names()).containsExactly("default.example.test");
        assertThat(registry.select(null, "RSA")).isNull();
    }

    @Test
    void wildcardsCoverOneLabel() throws Exception {
        write("wild.pem", KeyType.EC_P256, "*.shop.test");
        write("other.pem", KeyType.EC_P256, "other.test");
        CertificateRegistry registry = CertificateRegistry.load(dir, "other.pem");

        assertThat(registry.select("eu.shop.test", "EC").names()).containsExactly("*.shop.test");
        assertThat(registry.select("a.eu.shop.test", "EC").names()).containsExactly("other.test");
        assertThat(registry.select("shop.test", "EC").names()).containsExactly("other.test");
    }

    @Test
    void withoutTheNamedDefaultTheFirstFileIsTheDefault() throws Exception {
        write("b.pem", KeyType.EC_P256, "b.test");
        write("a.pem", KeyType.EC_P256, "a.test");
        assertThat(CertificateRegistry.load(dir, "missing.pem").select(null, "EC").names())
                .containsExactly("a.test");
    }

    @Test
    void filesWithPrivateKeysOrGarbageAreSkippedAndCounted() throws Exception {
        write("good.pem", KeyType.EC_P256, "good.test");
        KeyPair pair = TestKeys.of(KeyType.EC_P256);
        Files.writeString(dir.resolve("with-key.pem"), Files.readString(dir.resolve("good.pem"))
                + Pem.writePrivateKey(pair.getPrivate()));
        Files.writeString(dir.resolve("garbage.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        Files.writeString(dir.resolve("notes.txt"), "not a certificate file, not read");
        Files.writeString(dir.resolve(".good.pem.partial"), "being written");
        Files.createDirectory(dir.resolve("a-directory.pem"));

        CertificateRegistry registry = CertificateRegistry.load(dir, "good.pem");
        assertThat(registry.size()).isEqualTo(1);
        assertThat(registry.rejected()).isEqualTo(3);
        assertThat(CertificateRegistry.files(dir)).extracting(p -> p.getFileName().toString())
                .containsExactly("a-directory.pem", "garbage.crt", "good.pem", "with-key.pem");
    }

    @Test
    void aDirectoryWithoutAUsableChainIsAnError() throws Exception {
        Files.writeString(dir.resolve("empty.pem"), "");
        assertThatThrownBy(() -> CertificateRegistry.load(dir, "default.pem")).isInstanceOf(IOException.class)
                .hasMessageContaining("no usable certificate chain in " + dir);
        assertThatThrownBy(() -> CertificateRegistry.load(tmp.resolve("absent"), "default.pem"))
                .isInstanceOf(IOException.class);
    }

    @Test
    void ed25519CertificatesAreRefusedWithTheReason() throws Exception {
        write("ed.pem", KeyType.ED25519, "ed.test");
        assertThatThrownBy(() -> CertificateRegistry.load(dir, "ed.pem")).isInstanceOf(IOException.class);
        write("ec.pem", KeyType.EC_P256, "ec.test");
        assertThat(CertificateRegistry.load(dir, "ed.pem").rejected()).isEqualTo(1);
    }
}
