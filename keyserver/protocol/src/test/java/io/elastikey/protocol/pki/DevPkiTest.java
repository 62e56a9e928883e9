// DevPkiTest -- the dev PKI directory: its files and modes, idempotence, and what it refuses to load.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.InvalidKeyException;
import java.security.cert.CertificateException;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevPkiTest {
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    @TempDir
    Path temp;

    @Test
    void createsTheSixFilesWithOwnerOnlyKeys() throws Exception {
        assumeThat(FileSystems.getDefault().supportedFileAttributeViews()).contains("posix");
        Path dir = temp.resolve("pki");

        DevPki.loadOrCreate(dir);

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .containsExactlyInAnyOrder("ca.pem", "ca.key", "server.pem", "server.key", "client.pem",
                            "client.key");
        }
        for (String key : List.of(DevPki.CA_KEY, DevPki.SERVER_KEY, DevPki.CLIENT_KEY)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(key))))
                    .as(key).isEqualTo("rw-------");
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(Files.readString(dir.resolve(DevPki.CA_KEY))).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(Files.readString(dir.resolve(DevPki.SERVER_CERTIFICATE))).startsWith("-----BEGIN CERTIFICATE");
    }

    @Test
    void loadOrCreateTwiceReturnsTheSameCaAndCertificates() throws Exception {
        DevPki first = DevPki.loadOrCreate(temp);
        DevPki second = DevPki.loadOrCreate(temp);

        assertThat(second.ca().certificate()).isEqualTo(first.ca().certificate());
        assertThat(second.ca().privateKey().getEncoded()).isEqualTo(first.ca().privateKey().getEncoded());
        assertThat(second.server().certificate()).isEqualTo(first.server().certificate());
        assertThat(second.client().certificate()).isEqualTo(first.client().certificate());
        assertThat(DevPki.load(temp).ca().certificate()).isEqualTo(first.ca().certificate());
    }

    @Test
    void defaultServerCertificateCoversLocalhostAndBothLoopbackAddresses() throws Exception {
        DevPki pki = DevPki.loadOrCreate(temp);

        assertThat(pki.server().certificate().getSubjectAlternativeNames()).extracting(name -> (Object) name.get(1))
                .containsExactly("localhost", "127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(pki.ca().hasIssued(pki.server().certificate())).isTrue();
        assertThat(pki.server().chain()).containsExactly(pki.server().certificate(), pki.ca().certificate());
        assertThat(pki.ca().keyType()).isEqualTo(DevPki.DEFAULT_KEY_TYPE);
    }

    @Test
    void clientCertificateIsForClientAuth() throws Exception {
        DevPki pki = DevPki.loadOrCreate(temp);

        assertThat(pki.client().certificate().getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
        assertThat(pki.client().certificate().getSubjectX500Principal().getName())
                .isEqualTo("CN=" + DevPki.CLIENT_NAME);
        assertThat(pki.ca().hasIssued(pki.client().certificate())).isTrue();
    }

    @Test
    void createUsesTheKeyTypeAndServerNamesGiven() throws Exception {
        DevPki pki = DevPki.loadOrCreate(temp, KeyType.ED25519, List.of("keyserver.test", "10.0.0.7"));

        assertThat(KeyType.of(pki.server().certificate().getPublicKey())).isEqualTo(KeyType.ED25519);
        assertThat(pki.server().certificate().getSubjectX500Principal().getName()).isEqualTo("CN=keyserver.test");
        assertThat(pki.server().certificate().getSubjectAlternativeNames()).extracting(name -> (Object) name.get(1))
                .containsExactly("keyserver.test", "10.0.0.7");
        assertThat(DevPki.loadOrCreate(temp).ca().keyType()).as("existing files win").isEqualTo(KeyType.ED25519);
    }

    @Test
    void deletedServerPairIsIssuedAgainByTheExistingCa() throws Exception {
        DevPki first = DevPki.loadOrCreate(temp);
        Files.delete(temp.resolve(DevPki.SERVER_CERTIFICATE));
        Files.delete(temp.resolve(DevPki.SERVER_KEY));

        DevPki second = DevPki.loadOrCreate(temp);

        assertThat(second.ca().certificate()).isEqualTo(first.ca().certificate());
        assertThat(second.server().certificate()).isNotEqualTo(first.server().certificate());
        assertThat(second.ca().hasIssued(second.server().certificate())).isTrue();
        assertThat(second.client().certificate()).isEqualTo(first.client().certificate());
    }

    @Test
    void halfAPairIsAnErrorNamingTheMissingFile() throws Exception {
        DevPki.loadOrCreate(temp);
        Files.delete(temp.resolve(DevPki.SERVER_KEY));

        assertThatThrownBy(() -> DevPki.loadOrCreate(temp))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(temp.resolve(DevPki.SERVER_KEY).toString())
                .hasMessageContaining("its partner server.pem exists");
        assertThat(temp.resolve(DevPki.SERVER_CERTIFICATE)).exists();
    }

    @Test
    void loadCreatesNothingAndNamesTheFirstMissingFile() {
        assertThatThrownBy(() -> DevPki.load(temp))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(temp.resolve(DevPki.CA_CERTIFICATE).toString());
        assertThat(temp).isEmptyDirectory();
    }

    @Test
    void leafFromAnotherCaIsRefused() throws Exception {
        DevPki.loadOrCreate(temp);
        Path other = temp.resolve("other");
        DevPki.loadOrCreate(other);
        Files.delete(temp.resolve(DevPki.CLIENT_CERTIFICATE));
        Files.copy(other.resolve(DevPki.CLIENT_CERTIFICATE), temp.resolve(DevPki.CLIENT_CERTIFICATE));

        assertThatThrownBy(() -> DevPki.load(temp))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("client.pem was not issued by the CA in ca.pem");
    }

    @Test
    void keyOfAnotherCertificateIsRefused() throws Exception {
        DevPki.loadOrCreate(temp);
        Files.delete(temp.resolve(DevPki.SERVER_KEY));
        Files.copy(temp.resolve(DevPki.CLIENT_KEY), temp.resolve(DevPki.SERVER_KEY));

        assertThatThrownBy(() -> DevPki.loadOrCreate(temp))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("server.key is not the key of server.pem");
    }

    @Test
    void garbageKeyFileIsReportedWithItsPath() throws Exception {
        DevPki.loadOrCreate(temp);
        Files.writeString(temp.resolve(DevPki.CA_KEY), "garbage\n");

        assertThatThrownBy(() -> DevPki.load(temp))
                .isInstanceOf(PemException.class)
                .hasMessageStartingWith(temp.resolve(DevPki.CA_KEY) + ": expected one unencrypted private key")
                .hasMessageEndingWith("found text without a '-----BEGIN ...-----' line");
    }

    @Test
    void keyFilesAreNeverOverwritten() throws Exception {
        DevPki pki = DevPki.loadOrCreate(temp);

        assertThatThrownBy(() -> PemFiles.writePrivateKey(temp.resolve(DevPki.CA_KEY), pki.client().privateKey()))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(PemFiles.readPrivateKey(temp.resolve(DevPki.CA_KEY))).isEqualTo(pki.ca().privateKey());
    }
}
