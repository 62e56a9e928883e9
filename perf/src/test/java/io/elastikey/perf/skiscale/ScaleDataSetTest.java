// ScaleDataSetTest -- the data set is made once through the launcher, reused when complete, redone when not.
package io.elastikey.perf.skiscale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stand-in for {@code ./elastikey}: a shell script that records each command line and, for
 * {@code keys export-public}, copies a PEM file of three ec256 and one rsa2048 certificates to {@code --out}. The
 * real commands are tested in the key server's module; here what matters is which ones run, and when.
 */
class ScaleDataSetTest {
    @TempDir
    static Path shared;
    private static Path launcher;
    private static Path calls;

    @TempDir
    Path directory;
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    @BeforeAll
    static void writeLauncher() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Data set CA", KeyType.EC_P256, Validity.days(1));
        List<IssuedCertificate> issued = new ArrayList<>();
        for (KeyType type : List.of(KeyType.EC_P256, KeyType.RSA_2048, KeyType.EC_P256, KeyType.EC_P256)) {
            issued.add(ca.issueServer("k.example", List.of("k.example"), type, Validity.days(1)));
        }
        Path pem = shared.resolve("certs.pem");
        PemFiles.writeCertificates(pem, issued.stream().map(IssuedCertificate::certificate).toList());
        calls = shared.resolve("calls.txt");
        launcher = shared.resolve("elastikey");
        Files.writeString(launcher, """
                #!/bin/sh
                echo "$*" >> %s
                if [ "$2" = export-public ]; then
                  while [ $# -gt 0 ]; do [ "$1" = --out ] && cp %s "$2"; shift; done
                fi
                """.formatted(calls, pem));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void madeOnceThenReusedWhileComplete() throws Exception {
        Files.deleteIfExists(calls);

        ScaleDataSet made = ensure(3, 1, false);
        ScaleDataSet reused = ensure(3, 1, false);

        List<String> commands = Files.readAllLines(calls);
        assertThat(commands).hasSize(3);
        assertThat(commands.get(0)).contains("keys generate", "--count 3 --type ec256", "--set keys.expected=4");
        assertThat(commands.get(0)).contains("--no-warm-start"); // the second one prepares the start for both
        assertThat(commands.get(1)).contains("keys generate", "--count 1 --type rsa2048 --first 3")
                .doesNotContain("--no-warm-start");
        assertThat(commands.get(2)).contains("keys export-public", "--out " + directory.resolve("certs.pem"));
        assertThat(made.created()).isTrue();
        assertThat(reused.created()).isFalse();
        assertThat(reused.stepSeconds()).containsKeys("generate_ec256", "generate_rsa2048", "export_public",
                "key_lists");
        assertThat(Files.readAllLines(made.ecKeyList())).hasSize(4); // the header and three keys
        assertThat(Files.readAllLines(made.rsaKeyList())).hasSize(2);
        assertThat(output.toString(StandardCharsets.UTF_8)).contains("reusing it");
    }

    @Test
    void anInterruptedCreationIsRedoneFromTheStart() throws Exception {
        Files.createDirectories(directory.resolve("data/keys"));
        Files.writeString(directory.resolve("ec256.keys"), "half a list");
        Files.deleteIfExists(calls);

        ScaleDataSet made = ensure(3, 1, false);

        assertThat(made.created()).isTrue();
        assertThat(directory.resolve("data/keys")).doesNotExist();
        assertThat(Files.readAllLines(calls)).hasSize(3);
        assertThat(output.toString(StandardCharsets.UTF_8)).contains("incomplete");
        assertThat(directory.resolve(ScaleDataSet.MARKER)).exists();
    }

    @Test
    void otherCountsOrRegenerateMakeItAgain() throws Exception {
        ensure(3, 1, false);
        Files.deleteIfExists(calls);

        ensure(3, 1, true);
        assertThat(Files.readAllLines(calls)).hasSize(3);
        assertThatThrownBy(() -> ensure(5, 1, false)).isInstanceOf(IOException.class)
                .hasMessageContaining("expected 5 and 1");
        assertThat(directory.resolve(ScaleDataSet.MARKER)).as("a failed creation leaves no marker").doesNotExist();
    }

    private ScaleDataSet ensure(long ec, long rsa, boolean regenerate) throws Exception {
        return ScaleDataSet.ensure(launcher, directory, ec, rsa, regenerate,
                new PrintStream(output, true, StandardCharsets.UTF_8));
    }
}
