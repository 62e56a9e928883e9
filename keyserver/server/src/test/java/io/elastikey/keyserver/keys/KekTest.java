// KekTest -- the key-encryption key from a file or the environment; loose file modes refused.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.protocol.pki.KeyType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KekTest {
    static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);

    @TempDir
    Path dir;

    @Test
    void createWritesAnOwnerOnlyFileThatReadsBack() throws Exception {
        Path file = dir.resolve("sub/kek");
        Kek created = Kek.create(file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Base64.getDecoder().decode(Files.readString(file).strip())).hasSize(32);
        Kek read = Kek.readFile(file);
        assertThat(read.secretKey().getEncoded()).isEqualTo(created.secretKey().getEncoded());
        assertThat(read.toString()).isEqualTo("Kek[file " + file + "]");
        assertThatThrownBy(() -> Kek.create(file)).isInstanceOf(KekException.class)
                .hasMessageContaining("never overwritten");
    }

    @Test
    void aFileOthersMayReadIsRefusedWithItsNameAndMode() throws Exception {
        Path file = dir.resolve("kek");
        Kek.create(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> Kek.readFile(file)).isInstanceOf(KekException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("rw-r--r--")
                .hasMessageContaining("chmod 600");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        assertThatThrownBy(() -> Kek.readFile(file)).hasMessageContaining("rw-rw----");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        assertThat(Kek.readFile(file)).isNotNull();
    }

    @Test
    void theEnvironmentVariableWinsOverTheFile() {
        Kek kek = Kek.resolve(Map.of(Kek.ENVIRONMENT_VARIABLE, KEY), dir.resolve("absent"));
        assertThat(kek.source()).isEqualTo("environment variable ELASTIKEY_KEK");
        assertThat(kek.secretKey().getEncoded()).isEqualTo(new byte[32]);
    }

    @Test
    void malformedKeksAreClearErrorsWithoutTheirContent() {
        assertThatThrownBy(() -> Kek.fromBase64("secret!!", "test")).isInstanceOf(KekException.class)
                .hasMessageContaining("not base64").hasMessageNotContaining("secret");
        String short16 = Base64.getEncoder().encodeToString(new byte[16]);
        assertThatThrownBy(() -> Kek.fromBase64(short16, "test")).hasMessageContaining("holds 16 bytes");
        assertThatThrownBy(() -> Kek.resolve(Map.of(), dir.resolve("missing"))).isInstanceOf(KekException.class)
                .hasMessageContaining("missing").hasMessageContaining("does not exist")
                .hasMessageContaining(Kek.ENVIRONMENT_VARIABLE);
    }

    @Test
    void openCreatesTheKekOnceAndNeverReplacesALostOne() throws Exception {
        KeyServerConfig config = KeyServerConfig.defaults(dir);
        try (KeyRepository keys = KeyRepository.open(config, new JdkPrivateKeyParser())) {
            keys.add(TestKeys.entry(KeyType.EC_P256, "open.example.test"));
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config.kekFile())))
                .isEqualTo("rw-------");
        try (KeyRepository keys = KeyRepository.open(config, new JdkPrivateKeyParser())) {
            assertThat(keys.count()).isEqualTo(1);
        }
        Files.delete(config.kekFile());
        assertThatThrownBy(() -> KeyRepository.open(config, new JdkPrivateKeyParser()))
                .isInstanceOf(KekException.class).hasMessageContaining(config.kekFile().toString())
                .hasMessageContaining("does not exist");
        assertThat(config.kekFile()).doesNotExist();
        // The store was closed on the way out: it opens again.
        Kek.create(config.kekFile());
        assertThatThrownBy(() -> KeyRepository.open(config, new JdkPrivateKeyParser()))
                .isInstanceOf(KekException.class).hasMessageContaining("not the key-encryption key");
    }
}
